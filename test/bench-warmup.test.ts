import { describe, expect, test } from "bun:test";

/**
 * `npm run bench:warmup` times bench/warmup-subject.ts, the runtime of a checkout answering the kit's
 * `tool/call` in one process. Its figures only mean something if every call was answered, on both
 * wire versions the harness speaks.
 */
const subject = new URL("../bench/warmup-subject.ts", import.meta.url).pathname;
const root = new URL("..", import.meta.url).pathname;

describe("bench/warmup-subject.ts", () => {
  for (const api of ["0.1", "0.2"]) {
    test(`answers the initialize and all 86 chunks of 64 calls, plus the compiled phase (API ${api})`, () => {
      const run = Bun.spawnSync([process.execPath, "--smol", subject, root, api, "2"], { stdout: "pipe", stderr: "pipe" });
      expect(run.stderr.toString()).toBe("");
      expect(run.exitCode).toBe(0);
      const figures = JSON.parse(run.stdout.toString());
      expect(figures.answered).toBe(1 + (86 + 2) * 64);
      expect(figures.windowMs).toBeGreaterThan(0);
      expect(figures.steadyUs).toBeGreaterThan(0);
    });
  }
});
