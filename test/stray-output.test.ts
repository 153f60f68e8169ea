/**
 * Stray output from user code (docs/protocol-0.2.md §1.1, §1.3, §8.9): console, process.stdout,
 * process.stderr, Bun.write and inherited child stdio never reach stdout, and
 * raw stderr becomes structured log lines. Fixtures: test/fixtures/wire-fixture/
 * (the default) and test/fixtures/dispatch/.
 */
import { describe, expect, test } from "bun:test";
import type { TestHost } from "octet-extension/testing";
import { APIS, type Obj, stdoutLines, waitLog } from "./dispatch-fixture.ts";
import { expectCleanStreams, ready } from "./helpers.ts";

const LOG_LEVELS = ["debug", "info", "warning", "error"];

function expectStructuredStderr(host: TestHost): void {
  for (const line of host.stderr.filter((l) => l.trim() !== "")) {
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      throw new Error(`stderr line is not JSON: ${line}`);
    }
    expect(typeof record === "object" && record !== null && !Array.isArray(record)).toBe(true);
    const r = record as Obj;
    expect(LOG_LEVELS).toContain(r.level as string);
    expect(typeof r.message).toBe("string");
  }
}

test("stray writes by user code (console, process.stdout, Bun.write, child processes) never reach stdout", async () => {
  const host = await ready();
  expect(await host.callTool("stray")).toEqual({ content: "ok", is_error: false, metadata: {} });
  expect(await host.shutdown()).toBe(0);
  expectCleanStreams(host);
  const messages = host.logs().map((l) => l.message);
  expect(messages).toContain("stray console.log");
  expect(messages).toContain("stray process.stdout.write");
  expect(host.stderr.join("\n")).toContain("stray Bun.write");
  expect(host.stderr.join("\n")).toContain("stray child");
});

describe("stray stdio from user code (docs/protocol-0.2.md §1.3, §8.9)", () => {
  const STDERR_TEXTS = [
    "raw process.stderr.write line",
    "first of two raw lines",
    "second of two raw lines",
    "raw Bun.write stderr line",
    "child stderr line",
    "sync child stderr line",
    "node child stderr line",
    "late raw stderr line",
  ];
  const STDOUT_TEXTS = ["raw process.stdout.write line", "raw Bun.write stdout line", "child stdout line"];

  for (const [api, dir] of APIS) {
    test(`API ${api}: raw stderr (process.stderr, Bun.write, inherited child stderr) becomes structured log lines; stdout writes never reach stdout`, async () => {
      const host = await ready(dir);
      const reply = await host.callTool("stdio");
      expect(reply).toEqual(api === "0.1" ? { content: "stdio done", is_error: false, metadata: {} } : { content: [{ type: "text", text: "stdio done" }], is_error: false, metadata: {} });
      for (const text of [...STDERR_TEXTS, ...STDOUT_TEXTS]) {
        await waitLog(host, (l) => typeof l.message === "string" && l.message.includes(text)).catch(() => {
          throw new Error(`'${text}' never arrived as a structured log record; stderr:\n${host.stderr.join("\n")}`);
        });
      }
      // Still serving after the stray writes.
      expect(await host.callTool("echo", { text: "after" })).toBeDefined();
      expect(await host.shutdown()).toBe(0);
      // Every stderr line is a JSON object with a string level (one of four) and a string message.
      expectStructuredStderr(host);
      expect(host.stderr.some((l) => STDERR_TEXTS.some((t) => l === t))).toBe(false);
      // stdout: only JSON-RPC frames, none carrying the stray text.
      for (const line of stdoutLines(host)) {
        const frame = JSON.parse(line) as Obj;
        expect(frame.jsonrpc).toBe("2.0");
      }
      for (const text of STDOUT_TEXTS) expect(stdoutLines(host).some((l) => l.includes(text))).toBe(false);
      expect(host.violations).toEqual([]);
      expectCleanStreams(host);
    });
  }
});
