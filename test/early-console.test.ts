import { describe, expect, test } from "bun:test";
import { expectCleanStreams, ready } from "./helpers.ts";

const DIR = new URL("./fixtures/early-console", import.meta.url).pathname;
const SCRIPT = new URL("./fixtures/early-console.ts", import.meta.url).pathname;

describe("console output before run() (docs/protocol-0.2.md §1.3)", () => {
  test("under an octet host it is structured stderr from the SDK's import on; stdout carries frames only", async () => {
    const host = await ready(DIR);
    expect(await host.callTool("echo", { text: "hi" })).toEqual({ content: "hi", is_error: false, metadata: {} });
    expect(await host.shutdown()).toBe(0);
    expectCleanStreams(host);
    const records = host.stderr.filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
    expect(records).toContainEqual({ level: "info", message: "printed at module top level", source: "console" });
    expect(records).toContainEqual({ level: "info", message: `printed between construction and run() ${Bun.inspect({ step: 2 })}`, source: "console" });
  });

  test("a process not launched by a host keeps its console until run()", async () => {
    const env: Record<string, string> = { PATH: process.env.PATH ?? "" };
    const proc = Bun.spawn([process.execPath, "--no-env-file", SCRIPT], { cwd: DIR, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    proc.stdin.end();
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    expect(out.split("\n")).toContain("printed at module top level");
  });
});
