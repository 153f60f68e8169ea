import { describe, expect, test } from "bun:test";
import { join } from "node:path";

/**
 * JSC optimises a function only once enough of its value profiles have seen a value (75% by default);
 * otherwise it postpones the optimising compile, up to five times, and the function runs in the baseline
 * tier meanwhile. A call site, property read or module-constant read that never runs on the usual path
 * counts against the function, which is why the request path keeps its rare paths out of line
 * (docs/design.md, "Hot functions"). This runs the kit's pipelined `tool/call` in process
 * (`bench/warmup-subject.ts`) with JSC's optimisation log and fails when a function of the usual path is
 * postponed (docs/performance-log.md, ninth session: toolCall, executeQueued and replyLine were).
 */
const REPO = join(import.meta.dir, "..", "..");
const HOT = ["receive", "route", "readId", "executeQueued", "toolCall", "lookup", "settle", "conclude", "replyLine", "enqueue", "startMore", "pushText", "runEntered", "toolResult01", "plainTextResult", "toolSuccess02"];

function postponed(api: "0.1" | "0.2"): string[] {
  const run = Bun.spawnSync([process.execPath, "--smol", join(REPO, "bench", "warmup-subject.ts"), REPO, api, "0"], {
    env: { ...process.env, BUN_JSC_verboseOSR: "1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const log = run.stderr.toString() + run.stdout.toString();
  // The log must be there at all (an option Bun stopped passing to JSC would make this test vacuous).
  expect(log).toContain("Profile hotness");
  expect(run.stdout.toString()).toContain('"answered":5505');
  const names = new Set<string>();
  for (const match of log.matchAll(/Delaying optimization for ([A-Za-z0-9_$]*)#/g)) names.add(match[1]!);
  return [...names].filter((name) => HOT.includes(name)).sort();
}

describe("the usual tool/call path is profiled enough to be optimised at once", () => {
  for (const api of ["0.1", "0.2"] as const) {
    test(`API ${api}: no function of the path is postponed for insufficient profiling`, () => {
      expect(postponed(api)).toEqual([]);
    });
  }
});
