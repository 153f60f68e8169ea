import { HEX64, isNonBlankString, isObject, isStringArray, unknownKey, utf8Bytes as bytes } from "../check.ts";
import { ErrorCode, RpcError } from "../errors.ts";
import { IDENT as SECRET_NAME, negotiatesFeatures } from "../protocol.ts";
import { canonicalJson } from "../wire/canonical-json.ts";
import type { RequestId } from "../wire/ids.ts";
import type { HostAccess } from "./host-session.ts";
import { apiRefusal, notDeclared } from "./refusals.ts";
import type { JsonObject } from "./types.ts";

/**
 * Operation-scoped host services of API 0.2 (docs/protocol-0.2.md §4.7–§4.10, §8.11):
 * ephemeral input, artifacts, policy intents and brokered secrets. Local
 * checks run in the documented order and nothing is written when one fails:
 * argument problems are plain `Error`s, wire-level refusals `RpcError`s.
 */

const invalidReply = (message: string) => new RpcError(ErrorCode.InternalError, message);

/**
 * `input/request`: ask the user for ephemeral input; `null` when cancelled,
 * unavailable or headless. Secret answers are never logged.
 */
export async function requestInput(access: HostAccess, prompt: string, options: { secret?: boolean; parentRequestId?: RequestId } = {}): Promise<string | null> {
  if (typeof prompt !== "string" || prompt.trim() === "") throw new Error("input prompt must contain non-whitespace text");
  if (bytes(prompt) > 16 * 1024) throw new Error("input prompt exceeds 16 KiB");
  const secret = options.secret ?? false;
  if (typeof secret !== "boolean") throw new Error("input secret must be a boolean");
  const host = access.session();
  if (!negotiatesFeatures(host.api)) throw apiRefusal("ext.user.input()", "0.2 or 0.4", host.api);
  const reply = await host.request("input/request", { prompt, secret }, "ext.user.input()", access.caller(), { parentRequestId: options.parentRequestId });
  if (!isObject(reply) || Object.keys(reply).length !== 1 || !("value" in reply)) throw invalidReply("invalid input response");
  const value = reply.value;
  if (value !== null && typeof value !== "string") throw invalidReply("invalid input response");
  if (typeof value === "string" && bytes(value) > 256 * 1024) throw invalidReply("input response exceeds the 256 KiB bound");
  return value;
}

/** Where the artifact's bytes come from: inline bytes, or a file under `OCTET_EXTENSION_SCRATCH`. */
export type ArtifactSource =
  | { data: Uint8Array | string; size?: number; sha256?: string }
  | { path: string; size: number; sha256: string };

/**
 * `artifact/publish`: hand the host an image or audio file; resolves to its
 * opaque artifact id (use it in `imageContent`/`audioContent`).
 */
export async function publishArtifact(access: HostAccess, mimeType: string, source: ArtifactSource & { parentRequestId?: RequestId }): Promise<string> {
  if (typeof mimeType !== "string" || !mimeType.includes("/")) throw new Error("artifact MIME type must look like type/subtype");
  const hasData = "data" in source && source.data !== undefined;
  const hasPath = "path" in source && source.path !== undefined;
  if (hasData === hasPath) throw new Error("artifact needs exactly one source: data or path");
  let params: JsonObject;
  if (hasData) {
    const raw = (source as { data: Uint8Array | string }).data;
    const data = typeof raw === "string" ? new TextEncoder().encode(raw) : raw;
    if (!(data instanceof Uint8Array)) throw new Error("artifact data must be bytes or a string");
    const digest = new Bun.CryptoHasher("sha256").update(data).digest("hex");
    if (source.size !== undefined && source.size !== data.length) throw new Error(`artifact size ${source.size} does not match the data (${data.length} bytes)`);
    if (source.sha256 !== undefined && source.sha256.toLowerCase() !== digest) throw new Error("artifact sha256 does not match the data");
    params = { mime_type: mimeType, size: data.length, sha256: digest, data: { encoding: "base64", data: Buffer.from(data).toString("base64") } };
  } else {
    const { path, size, sha256 } = source as { path: string; size: number; sha256: string };
    if (typeof path !== "string" || path === "" || path.startsWith("/") || /^[A-Za-z]:/.test(path) || path.split(/[\\/]/).includes("..")) {
      throw new Error("artifact path must be relative to OCTET_EXTENSION_SCRATCH without '..'");
    }
    if (!Number.isSafeInteger(size) || size < 0) throw new Error("artifact size must be a non-negative integer");
    if (typeof sha256 !== "string" || !HEX64.test(sha256.toLowerCase())) throw new Error("artifact sha256 must be 64 hexadecimal characters");
    params = { mime_type: mimeType, path, size, sha256: sha256.toLowerCase() };
  }
  const reply = await access.session().request("artifact/publish", params, "ext.artifacts.publish()", access.caller(), { parentRequestId: source.parentRequestId });
  if (!isObject(reply) || typeof reply.artifact_id !== "string" || reply.artifact_id === "") throw invalidReply("invalid artifact response");
  return reply.artifact_id;
}

/** A structured policy intent (docs/protocol-0.2.md §4.9). */
export interface PolicyIntent {
  kind: string;
  operation: string;
  target: JsonObject;
  data_classes?: string[];
  adapter_hints?: { read_only?: boolean | null; destructive?: boolean | null };
}

/** The host's decision; a token comes only with `ask` when `approvals` was negotiated. */
export interface PolicyDecision {
  decision: "allow" | "ask" | "deny";
  approval_token?: string;
}

function checkIntent(intent: unknown): PolicyIntent {
  if (!isObject(intent)) throw new Error("policy intent must be an object");
  const unknown = unknownKey(intent, ["kind", "operation", "target", "data_classes", "adapter_hints"]);
  if (unknown !== undefined) throw new Error(`policy intent has unknown field ${unknown}`);
  if (!isNonBlankString(intent.kind)) throw new Error("policy intent kind must be a non-blank string");
  if (!isNonBlankString(intent.operation)) throw new Error("policy intent operation must be a non-blank string");
  if (!isObject(intent.target)) throw new Error("policy intent target must be an object");
  if (intent.data_classes !== undefined && !isStringArray(intent.data_classes)) throw new Error("policy intent data_classes must be an array of strings");
  const hints = intent.adapter_hints;
  if (hints !== undefined) {
    if (!isObject(hints)) throw new Error("policy intent adapter_hints must be an object");
    for (const [key, value] of Object.entries(hints)) {
      if (key !== "read_only" && key !== "destructive") throw new Error(`policy intent adapter_hints has unknown field ${key}`);
      if (value !== null && typeof value !== "boolean") throw new Error(`policy intent adapter_hints.${key} must be a boolean or null`);
    }
  }
  if (bytes(canonicalJson(intent)) > 32 * 1024) throw new Error("policy intent exceeds 32 KiB when canonically encoded");
  return intent as unknown as PolicyIntent;
}

/** `policy/evaluate`: submit an intent before a host-managed effect; retry `ask` with its token. */
export async function evaluatePolicy(access: HostAccess, intent: PolicyIntent, options: { approvalToken?: string; parentRequestId?: RequestId } = {}): Promise<PolicyDecision> {
  checkIntent(intent);
  const host = access.session();
  host.requireFeature("policy_intents", "ext.policy.evaluate()");
  const params: JsonObject = { intent };
  if (options.approvalToken !== undefined) {
    if (typeof options.approvalToken !== "string" || !HEX64.test(options.approvalToken)) throw new Error("approval token must be 64 lowercase hexadecimal characters");
    host.requireFeature("approvals", "ext.policy.evaluate({ approvalToken })");
    params.approval_token = options.approvalToken;
  }
  const reply = await host.request("policy/evaluate", params, "ext.policy.evaluate()", access.caller(), { parentRequestId: options.parentRequestId });
  if (!isObject(reply) || !["allow", "ask", "deny"].includes(reply.decision as string)) throw invalidReply("invalid policy response");
  const decision: PolicyDecision = { decision: reply.decision as PolicyDecision["decision"] };
  if (reply.approval_token !== undefined && reply.approval_token !== null) {
    if (typeof reply.approval_token !== "string" || !HEX64.test(reply.approval_token)) throw invalidReply("invalid policy response: approval token must be 64 lowercase hex");
    host.requireFeature("approvals", "ext.policy.evaluate() receiving an approval token");
    if (decision.decision !== "ask") throw invalidReply("invalid policy response: an approval token comes only with ask");
    decision.approval_token = reply.approval_token;
  }
  return decision;
}

/** `secret/get`: resolve a secret named in `[capabilities].secrets`. Never log the value. */
export async function getSecret(access: HostAccess, name: string, options: { parentRequestId?: RequestId } = {}): Promise<string> {
  if (typeof name !== "string" || !SECRET_NAME.test(name)) throw new Error("secret name must match ^[A-Za-z_][A-Za-z0-9_.-]{0,63}$");
  const reply = await access.session().request("secret/get", { name }, "ext.secrets.get()", access.caller(), { parentRequestId: options.parentRequestId });
  if (!isObject(reply) || Object.keys(reply).length !== 1 || typeof reply.value !== "string" || bytes(reply.value) > 64 * 1024) {
    throw invalidReply("invalid secret lookup response");
  }
  return reply.value;
}

/**
 * `confirmation/request`: ask the user to confirm; `false` when the frontend
 * cannot ask. Needs `contributes.confirmations = true`; on API 0.2 it is tied
 * to the handler's request, or to `parentRequestId` outside a handler.
 */
export async function confirm(
  access: HostAccess,
  prompt: string,
  options: { detail?: string; destructive?: boolean; default?: boolean; parentRequestId?: RequestId } = {},
): Promise<boolean> {
  if (typeof prompt !== "string") throw new Error("confirmation prompt must be a string");
  if (options.detail !== undefined && typeof options.detail !== "string") throw new Error("confirmation detail must be a string");
  for (const key of ["destructive", "default"] as const) {
    if (options[key] !== undefined && typeof options[key] !== "boolean") throw new Error(`confirmation ${key} must be a boolean`);
  }
  const host = access.session();
  if (host.negotiated.contributes.confirmations !== true) throw notDeclared("ext.user.confirm()", "confirmations");
  const params: JsonObject = { prompt, destructive: options.destructive ?? false, default: options.default ?? false };
  if (options.detail !== undefined) params.detail = options.detail;
  // API 0.1 has no parent_request_id.
  const parent = negotiatesFeatures(host.api) ? "last" : "none";
  const reply = await host.request("confirmation/request", params, "ext.user.confirm()", access.caller(), { parentRequestId: options.parentRequestId, parent });
  if (!isObject(reply) || typeof reply.confirmed !== "boolean") throw invalidReply("invalid confirmation response");
  return reply.confirmed;
}

/**
 * Any extension→host request, as Python's raw `request`: no feature gate. On
 * API 0.2 the caller's (or an explicit) parent is added; `operationScoped`
 * makes a missing parent an error.
 */
export function hostRequest(access: HostAccess, method: string, params: JsonObject, options: { parentRequestId?: RequestId; operationScoped?: boolean } = {}): Promise<unknown> {
  try {
    const host = access.session();
    const caller = access.caller();
    const sent: JsonObject = { ...params };
    if (negotiatesFeatures(host.api) && (caller !== undefined || options.parentRequestId !== undefined || options.operationScoped)) {
      sent.parent_request_id = host.parent(caller, options.parentRequestId);
    }
    return host.raw(method, sent, caller);
  } catch (error) {
    return Promise.reject(error);
  }
}
