/**
 * The dispatch fixture (test/fixtures/dispatch/) on API 0.1, 0.2 and 0.4, and
 * helpers to observe it: every host-method handler logs `handler ran`, so a
 * test can tell whether it was invoked. Used by the process-level tests of
 * dispatch, initialize validation, stray output and result normalisation.
 */
import type { TestHost } from "octet-extension/testing";

export type Obj = Record<string, unknown>;

const fixture = (name: string) => new URL(`./fixtures/dispatch/${name}`, import.meta.url).pathname;
export const V01 = fixture("dispatch-v01");
export const V02 = fixture("dispatch-v02");
export const V04 = fixture("dispatch-v04");
export const APIS: [string, string][] = [
  ["0.1", V01],
  ["0.2", V02],
  ["0.4", V04],
];

/** Registration order of the fixture (docs/protocol-0.2.md §8.2 step 9). */
export const REGISTERED_TOOLS = ["echo", "returns", "mark", "stdio"];
export const REGISTERED_COMMANDS = ["mark", "other"];

/** Wait until a structured log record matching `predicate` has arrived on stderr. */
export async function waitLog(host: TestHost, predicate: (record: Obj) => boolean, timeoutMs = 5_000): Promise<Obj> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const found = host.logs().find(predicate);
    if (found) return found;
    if (performance.now() > deadline) throw new Error(`no matching log record within ${timeoutMs} ms; stderr:\n${host.stderr.join("\n")}`);
    await Bun.sleep(10);
  }
}

/** Raw stdout lines the extension wrote (each a JSON-RPC frame when healthy). */
export function stdoutLines(host: TestHost): string[] {
  return host.transcript.filter((e) => e.from === "extension").map((e) => e.text);
}
