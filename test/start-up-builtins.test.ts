/**
 * Cold start (issue 28): some built-ins written in JavaScript cost far more on their first use than
 * the work they do, because JSC links their code then (a compiled probe, medians of 21 launches:
 * `new Promise(executor)` ~110 µs and ~16 page faults, against `Promise.withResolvers()` ~7 µs;
 * `map`/`filter`/`some`/`forEach` and friends 50–150 µs; docs/performance.md). The path to the
 * initialize reply uses none of them. JSC names every function it generates code for
 * (`BUN_JSC_dumpGeneratedBytecodes`); this runs the benchmark subject from source, answers one
 * initialize per API version, and reads the names generated before the reply.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SUBJECT = new URL("../bench/sdk-extension.ts", import.meta.url).pathname;

/** Built-ins written in JavaScript (linked on first use, most measured at 50–150 µs); none may run before the initialize reply. */
const COSTLY = ["Promise", "map", "filter", "some", "every", "find", "findIndex", "reduce", "forEach", "flatMap", "flat", "from", "at", "fromEntries", "sort", "structuredClone"];

/** What octet 0.8.0 sends for the subject's manifest (tools `echo` and `progress`). */
function initializeFrame(api: "0.1" | "0.2" | "0.4"): string {
  const params: Record<string, unknown> = {
    api_version: api,
    octet_version: "0.8.0",
    extension: { name: "octet-bench", version: "0.1.0", manifest_path: "/tmp/extension.toml", source: "explicit" },
    workspace: "/tmp",
    capabilities: { filesystem: "none", process: false, network: false },
    contributes: { tools: ["echo", "progress"], commands: [], notifications: true },
    host: { session_id: null, session_name: null, model: "test-model", reasoning: null, active_skills: [] },
  };
  if (api !== "0.1") {
    const optional = ["request_progress", "artifacts", "lifecycle_events", "policy_intents"];
    if (api === "0.4") optional.push("resource_refs_v1", "operation_descriptors_v1", "tool_prompt_metadata_v1", "autocomplete_edit_v1");
    params.protocol = {
      version: api,
      required_features: ["request_cancellation", "content_parts"],
      optional_features: optional,
      limits: api === "0.4" ? { max_concurrent_requests: 4, resource_refs_v1: { max_records: 256, max_registrations_per_parent: 32 } } : { max_concurrent_requests: 4 },
    };
  }
  if (api === "0.4") params.flag_values = [];
  return `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params })}\n`;
}

/** Names of the functions JSC generated code for from launch to the initialize reply (the process is stopped there). */
async function generatedBeforeReply(api: "0.1" | "0.2" | "0.4"): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "octet-builtins-"));
  const dump = join(dir, "stderr.txt");
  try {
    const child = Bun.spawn([process.execPath, SUBJECT], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: Bun.file(dump),
      env: { ...process.env, OCTET_EXTENSION_API_VERSION: api, BUN_JSC_dumpGeneratedBytecodes: "1" },
    });
    child.stdin.write(initializeFrame(api));
    child.stdin.flush();
    const reader = child.stdout.getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    child.kill("SIGSTOP");
    const reply = JSON.parse(text.slice(0, text.indexOf("\n")));
    expect(reply.result.api_version).toBe(api);
    child.kill("SIGKILL");
    await child.exited;
    const names: string[] = [];
    for (const line of readFileSync(dump, "utf8").split("\n")) {
      const match = /^([^\s:#]*)#[A-Za-z0-9]+:\[/.exec(line);
      if (match && /\d+ instructions? \(/.test(line)) names.push(match[1]!);
    }
    return names;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const api of ["0.1", "0.2", "0.4"] as const) {
  test(`API ${api}: no costly built-in runs before the initialize reply`, async () => {
    const names = await generatedBeforeReply(api);
    // The dump is complete up to the reply's write (first-reply.ts encodes it with `encodeWireFrame` right before), so the check below can fail.
    expect(names).toContain("negotiate");
    expect(names).toContain("encodeWireFrame");
    expect(names.filter((name) => COSTLY.includes(name))).toEqual([]);
  });
}
