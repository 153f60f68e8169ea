/**
 * examples/typescript-hello: the port of octet's 0.4 TypeScript example,
 * under the strict test host in 0.4 mode (process level).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { TestHost } from "octet-extension/testing";
import { expectCleanStreams } from "../helpers.ts";

const DIR = new URL("../../examples/typescript-hello", import.meta.url).pathname;
let host: TestHost | undefined;
afterEach(() => host?.kill());

describe("examples/typescript-hello (API 0.4)", () => {
  test("negotiates 0.4 and counts like octet's example, with a progress event first", async () => {
    host = await TestHost.start(DIR);
    const result = await host.initialize();
    expect(result).toMatchObject({ api_version: "0.4", protocol: { version: "0.4", limits: { max_concurrent_requests: 2 } } });
    expect((result.tools as Record<string, unknown>[])[0]!.prompt_snippet).toBe("text_stats: exact character, word, line and UTF-8 byte counts of a text");
    expect(await host.callTool("text_stats", { text: "hello world\n🦀" })).toEqual({
      content: [{ type: "text", text: "characters=13 words=3 lines=2 utf8_bytes=16" }],
      is_error: false,
      metadata: {},
    });
    expect(host.notifications("$/progress").map((n) => (n.params as { event: unknown }).event)).toEqual([{ type: "status", message: "Counting supplied text" }]);
    expect(await host.callTool("text_stats", { text: "" })).toMatchObject({ content: [{ text: "characters=0 words=0 lines=0 utf8_bytes=0" }] });
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
    expectCleanStreams(host);
  });

  test("a call with delayMs 2000 is cancelled well within octet's grace", async () => {
    host = await TestHost.start(DIR);
    await host.initialize();
    const id = host.peekNextId();
    const call = host.request("tool/call", { name: "text_stats", arguments: { text: "slow", delayMs: 2000 }, context: host.executionContext() });
    await host.waitForFrame((f) => f.method === "$/progress");
    const started = performance.now();
    host.cancel(id);
    expect((await call).error).toMatchObject({ code: -32800 });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await host.shutdown()).toBe(0);
  });
});
