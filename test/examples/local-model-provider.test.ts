import { afterEach, describe, expect, test } from "bun:test";
import { TestHost } from "octet-extension/testing";

const DIR = new URL("../../examples/local-model-provider", import.meta.url).pathname;
let host: TestHost;
afterEach(() => host?.kill());

const request = (prompt: string) => ({ messages: [{ content: prompt, role: "user" }], model: "local-echo", stream: true });
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("examples/local-model-provider (process level, API 0.3, strict test host)", () => {
  test("registers its model at initialize, then providers/complete", async () => {
    host = await TestHost.start(DIR);
    const result = await host.initialize();
    expect((result.contract as any).methods).toEqual(["$/cancelRequest", "initialize", "provider/cancel", "provider/event", "provider/stream", "providers/complete", "providers/register", "shutdown", "tool/call"]);
    await host.waitForFrame((f) => f.method === "providers/complete");
    expect(host.providers.catalog.revision).toBe(1);
    expect([...host.providers.catalog.providers]).toEqual([["local", ["local-echo"]]]);
    const register = host.extensionFrames().find((f) => f.method === "providers/register")!;
    expect((register.params as any).provider).toEqual({ auth: { kind: "none" }, id: "local", label: "Local model" });
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("streams the local model's tokens in order, sequences 0.., ending with usage and finished", async () => {
    host = await TestHost.start(DIR);
    await host.initialize();
    const outcome = await host.providers.stream({ provider_id: "local", model_id: "local-echo", request: request("hi there") });
    expect(outcome.accepted).toBe(true);
    expect(outcome.ended).toBe("finished");
    expect(outcome.events.map((e) => e.sequence)).toEqual(outcome.events.map((_, i) => i));
    const text = outcome.events.filter((e) => e.kind === "text_delta").map((e) => (e.payload as any).delta).join("");
    expect(text).toBe("You said: hi there");
    expect(outcome.events.map((e) => e.kind)).toEqual(["started", "text_start", "text_delta", "text_delta", "text_delta", "text_delta", "text_end", "usage", "finished"]);
    expect(outcome.events.at(-2)!.payload).toEqual({ output_tokens: 4, total_tokens: 4 });
    const unknown = await host.providers.stream({ provider_id: "local", model_id: "gpt-9", request: request("x") });
    expect(unknown).toMatchObject({ accepted: false, reason: "unknown model", ended: "refused", events: [] });
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("provider/cancel mid-stream kills the model process and no further event is sent", async () => {
    host = await TestHost.start(DIR, { env: { LOCAL_MODEL_DELAY_MS: "200" } });
    await host.initialize();
    const prompt = Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ");
    const run = host.providers.stream({ provider_id: "local", model_id: "local-echo", request: request(prompt), stream_id: "s-cancel" });
    await host.waitForFrame((f) => f.method === "provider/event" && (f.params as any).sequence === 3);
    const started = host.extensionFrames().find((f) => f.method === "provider/event" && (f.params as any).kind === "started")!;
    const pid = Number(String((started.params as any).payload.response_id).replace("local-", ""));
    expect(alive(pid)).toBe(true);
    host.providers.cancel("s-cancel", "user");
    const outcome = await run;
    expect(outcome.ended).toBe("cancelled");
    const deadline = performance.now() + 3_000;
    while (alive(pid) && performance.now() < deadline) await Bun.sleep(20);
    expect(alive(pid)).toBe(false);
    const count = host.notifications("provider/event").length;
    await Bun.sleep(600); // three more model ticks: any event now would be a violation
    expect(host.notifications("provider/event").length).toBe(count);
    expect(count).toBeLessThan(10);
    expect(await host.shutdown()).toBe(0);
    expect(host.violations).toEqual([]);
  });

  test("every frame the extension wrote re-encodes byte for byte (the host's independent canonical check)", async () => {
    host = await TestHost.start(DIR);
    await host.initialize();
    await host.providers.stream({ provider_id: "local", model_id: "local-echo", request: request("é ü 😀") });
    expect(await host.shutdown()).toBe(0);
    const sorted = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(sorted) : v && typeof v === "object" ? Object.fromEntries(Object.keys(v).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))).map((k) => [k, sorted((v as any)[k])])) : v;
    const frames = host.transcript.filter((e) => e.from === "extension");
    expect(frames.length).toBeGreaterThan(8);
    for (const entry of frames) expect(entry.text).toBe(JSON.stringify(sorted(JSON.parse(entry.text))));
    expect(host.violations).toEqual([]);
  });
});
