import { describe, expect, spyOn, test } from "bun:test";
import { Extension } from "octet-extension";
import { GarbagePacer, GC_PACING_BYTES } from "../../src/runtime/garbage-pacer.ts";
import { FrameWriter } from "../../src/wire/frame-writer.ts";
import { inProcess } from "./harness.ts";

describe("garbage pacing (src/runtime/garbage-pacer.ts)", () => {
  test("collects once per budget of traffic, counted from the last collection", () => {
    let collections = 0;
    const pacer = new GarbagePacer(100, () => collections++);
    pacer.pace(0);
    pacer.pace(99);
    expect(collections).toBe(0);
    pacer.pace(100);
    expect(collections).toBe(1);
    pacer.pace(199);
    expect(collections).toBe(1);
    pacer.pace(450); // a large jump still costs one collection
    expect(collections).toBe(2);
    pacer.pace(549);
    expect(collections).toBe(2);
    pacer.pace(550);
    expect(collections).toBe(3);
  });

  test("a budget of 0 never collects", () => {
    let collections = 0;
    const pacer = new GarbagePacer(0, () => collections++);
    for (let traffic = 0; traffic < 10_000_000; traffic += 100_000) pacer.pace(traffic);
    expect(collections).toBe(0);
  });

  test("the writer counts what it hands to the sink, text and bytes alike", async () => {
    const sink = { write: (chunk: string | Uint8Array) => chunk.length, flush: () => 0 };
    const writer = new FrameWriter(sink);
    expect(writer.handedOver).toBe(0);
    await writer.write('{"a":1}\n');
    await writer.write(new Uint8Array(1000));
    expect(writer.handedOver).toBe(8 + 1000);
  });

  test("gcPacingBytes defaults to 512 KiB and must be a non-negative number", () => {
    expect(GC_PACING_BYTES).toBe(512 * 1024);
    expect(() => new Extension({ gcPacingBytes: -1, handleUncaught: false })).toThrow("gcPacingBytes must be a non-negative number");
    expect(() => new Extension({ gcPacingBytes: Number.NaN, handleUncaught: false })).toThrow("gcPacingBytes must be a non-negative number");
    expect(() => new Extension({ gcPacingBytes: 0, handleUncaught: false })).not.toThrow();
  });

  // The reader paces between reads with bytes read + written; the host sees nothing of it.
  for (const [budget, expected] of [
    [4096, "collects"],
    [0, "never collects"],
  ] as const) {
    test(`the reader ${expected} with gcPacingBytes ${budget}`, async () => {
      const gc = spyOn(Bun, "gc");
      try {
        const { callTool } = await inProcess(
          (ext) => ext.tool({ name: "echo", description: "Echo text" }, (args: { text: string }) => ({ content: args.text })),
          { api: "0.1", extension: { gcPacingBytes: budget } },
        );
        gc.mockClear();
        const text = "z".repeat(3000);
        for (let i = 0; i < 4; i++) {
          const reply = await callTool("echo", { text });
          expect(reply.result.content).toBe(text);
        }
        // Each call moves ~6 KB (3 KB in, 3 KB out): with a 4 KiB budget every later read collects.
        if (budget === 0) expect(gc).not.toHaveBeenCalled();
        else {
          expect(gc.mock.calls.length).toBeGreaterThanOrEqual(3);
          expect(gc.mock.calls.every((call) => call[0] === false)).toBe(true);
        }
      } finally {
        gc.mockRestore();
      }
    });
  }
});
