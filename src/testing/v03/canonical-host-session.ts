import type { JsonRecord } from "../../check.ts";
import { flagValues } from "../host-params.ts";
import type { HostManifest } from "../manifest.ts";
import type { TestHostOptions } from "../host-options.ts";
import type { HostReadEvent } from "../stdout-reader.ts";
import type { TranscriptEntry } from "../transcript.ts";
import { checkCanonicalFrame } from "./canonical-check.ts";
import { ProviderHost } from "./provider-host.ts";
import { REQUIRED_CAPABILITIES_03, REQUIRED_METHODS_03, responseViolation, selectionViolation } from "./rules.ts";

/** The largest frame API 0.3 allows, LF excluded: the bound before the initialize reply. */
export const MAX_FRAME_BYTES_03 = 1_048_576;

/**
 * octet's fixture offer (`protocol/fixtures/extension-api-v0.3/initialize-request.json`):
 * the fixed required sets, the five optional capabilities and twelve methods a
 * host without session or bus services offers, limits 1 MiB / 4 / 256.
 */
export function defaultContractOffer(): JsonRecord {
  return {
    encoding: "octet-canonical-json-v1",
    limits: { max_concurrent_requests: 4, max_frame_bytes: MAX_FRAME_BYTES_03, max_tools: 256 },
    optional_capabilities: ["lifecycle_events", "migration.adapter.v1", "provider_auth", "provider_catalog", "provider_stream"],
    optional_methods: [
      "hook/run",
      "migration/detect",
      "migration/import",
      "provider/auth/request",
      "provider/auth/revoke",
      "provider/cancel",
      "provider/event",
      "provider/stream",
      "providers/complete",
      "providers/register",
      "providers/unregister",
      "providers/update",
    ],
    required_capabilities: [...REQUIRED_CAPABILITIES_03],
    required_methods: [...REQUIRED_METHODS_03],
    schema: "octet.extension.api/0.3",
  };
}

/**
 * The API 0.3 side of the test host: the offer it sends, the bound it reads
 * stdout with (switched to the selected one as soon as the initialize reply
 * is read), the independent canonical check of every frame, and the
 * selection rules.
 */
export class CanonicalHostSession {
  /** The frame bound stdout is read with. */
  bound = MAX_FRAME_BYTES_03;
  /** The contract the extension selected, once its initialize reply passed the rules. */
  selected: { capabilities: ReadonlySet<string>; methods: ReadonlySet<string>; limits: JsonRecord } | undefined;
  /** The methods of the initialize reply as read (set before the reply's checks run, so frames right after it are judged by them). */
  selectedMethods: ReadonlySet<string> = new Set();
  /** The provider catalog and stream ingress (`provider-host.ts`). */
  readonly providers = new ProviderHost();
  private initialize: { id: number; params: JsonRecord } | undefined;
  private readonly extensionIds = new Set<string | number>();
  private readonly outstanding = new Set<string | number>();

  constructor(private readonly manifest: HostManifest) {}

  /** Initialize params as octet builds them for 0.3 (keys as in octet's fixture, plus `manifest_path`). */
  initializeParams(workspace: string, options: Pick<TestHostOptions, "octetVersion" | "flags">): JsonRecord {
    const m = this.manifest;
    return {
      api_version: "0.3",
      capabilities: { filesystem: m.capabilities.filesystem, network: m.capabilities.network, process: m.capabilities.process },
      contract: defaultContractOffer(),
      contributes: structuredClone(m.contributesTable ?? { tools: m.contributes.tools }),
      extension: { manifest_path: m.path, name: m.name, source: "explicit", version: m.version },
      flag_values: flagValues(m, options.flags),
      host: { active_skills: [], model: "test-model", reasoning: null, session_id: null, session_name: null },
      octet_version: options.octetVersion ?? "0.8.0",
      workspace,
    };
  }

  /** The initialize request about to go out with `id`: its reply switches the bound. */
  expectInitialize(id: number, params: JsonRecord): void {
    this.initialize = { id, params };
    const offered = ((params.contract as JsonRecord | undefined)?.limits as JsonRecord | undefined)?.max_frame_bytes;
    if (Number.isSafeInteger(offered) && (offered as number) > 0) this.bound = Math.min(offered as number, MAX_FRAME_BYTES_03);
  }

  /** One event of stdout: what the transcript records and the fatal rule it breaks, if any. */
  decode(event: HostReadEvent): { entry?: TranscriptEntry; violation?: string } {
    if (event.kind === "oversize") return { violation: `stdout frame exceeds max_frame_bytes ${this.bound} (the LF excluded)` };
    if (event.kind === "unterminated") return { violation: "EOF in the middle of a stdout frame" };
    const text = new TextDecoder().decode(event.bytes);
    const checked = checkCanonicalFrame(event.bytes);
    if ("violation" in checked) return { entry: { from: "extension", text }, violation: `stdout ${checked.violation}: ${text.slice(0, 200)}` };
    const frame = checked.value;
    if (frame === null || typeof frame !== "object" || Array.isArray(frame)) return { entry: { from: "extension", text }, violation: `stdout frame is not an object: ${text.slice(0, 200)}` };
    const entry: TranscriptEntry = { from: "extension", text, frame: frame as JsonRecord };
    if (!("method" in frame)) {
      const violation = responseViolation(frame as JsonRecord);
      if (violation) return { entry, violation };
      this.switchBound(frame as JsonRecord);
    }
    return { entry };
  }

  /** Check the initialize result (octet would end the process otherwise); records the selection. */
  checkInitialize(result: unknown, params: JsonRecord): string | undefined {
    const violation = selectionViolation(result, params, this.manifest);
    if (violation) return violation;
    const contract = (result as JsonRecord).contract as JsonRecord;
    this.selected = { capabilities: new Set(contract.capabilities as string[]), methods: new Set(contract.methods as string[]), limits: contract.limits as JsonRecord };
    return undefined;
  }

  /** Note an extension request id: false when it was used before in this process. */
  admit(id: string | number): boolean {
    if (this.extensionIds.has(id)) return false;
    this.extensionIds.add(id);
    this.outstanding.add(id);
    return true;
  }

  /** The host answers an extension request: false when it is no longer outstanding. */
  settle(id: string | number): boolean {
    return this.outstanding.delete(id);
  }

  /** The selected bound replaces the offered one right after the initialize reply is read (before the next frame). */
  private switchBound(frame: JsonRecord): void {
    if (!this.initialize || frame.id !== this.initialize.id || !("result" in frame)) return;
    const contract = (frame.result as JsonRecord | null)?.contract as JsonRecord | undefined;
    if (Array.isArray(contract?.methods)) this.selectedMethods = new Set(contract.methods as string[]);
    const limits = contract?.limits as JsonRecord | undefined;
    const offered = ((this.initialize.params.contract as JsonRecord).limits as JsonRecord).max_frame_bytes as number;
    const selected = limits?.max_frame_bytes;
    this.bound = Number.isSafeInteger(selected) && (selected as number) > 0 && (selected as number) <= offered ? (selected as number) : offered;
    this.initialize = undefined;
  }
}
