import { describe, expect, spyOn, test } from "bun:test";
import { Extension } from "octet-extension";
import { GarbagePacer } from "../../src/runtime/garbage-pacer.ts";
import { GC_PACING_BYTES } from "../../src/runtime/options.ts";
import { FrameWriter, LONG_FRAME_LENGTH } from "../../src/wire/frame-writer.ts";
import { lineLength } from "../../src/wire/line-splitter.ts";
import { inProcess } from "./harness.ts";

describe("garbage pacing (src/runtime/garbage-pacer.ts)", () => {
  /** A pacer whose collections run when `flush()` is called, with a settable clock. */
  function manual(budget: number, collect: () => void, cost = 0) {
    let queued: (() => void) | undefined;
    let clock = 0;
    const pacer = new GarbagePacer(
      budget,
      () => {
        collect();
        clock += cost;
      },
      (run) => void (queued = run),
      () => clock,
    );
    return {
      pacer,
      flush: () => {
        const run = queued;
        queued = undefined;
        run?.();
      },
      advance: (ms: number) => void (clock += ms),
      get pending() {
        return queued !== undefined;
      },
    };
  }

  test("collects once per budget of traffic, counted from the last collection", () => {
    let collections = 0;
    const m = manual(100, () => collections++);
    m.pacer.pace(0);
    m.pacer.pace(99);
    expect(m.pending).toBe(false);
    m.pacer.pace(100);
    m.pacer.pace(180); // already scheduled: one request
    expect(collections).toBe(0); // nothing runs until the scheduled task does
    m.flush();
    expect(collections).toBe(1);
    m.pacer.pace(199);
    expect(m.pending).toBe(false);
    m.pacer.pace(450); // a large jump still costs one collection
    m.flush();
    expect(collections).toBe(2);
    m.pacer.pace(549); // counted from 450, the traffic when the last one was asked for
    expect(m.pending).toBe(false);
    m.pacer.pace(550);
    m.flush();
    expect(collections).toBe(3);
  });

  test("a budget of 0 never collects", () => {
    let collections = 0;
    const m = manual(0, () => collections++);
    for (let traffic = 0; traffic < 10_000_000; traffic += 100_000) m.pacer.pace(traffic);
    m.flush();
    expect(collections).toBe(0);
  });

  test("its own cost stays under 2% of wall time", () => {
    let collections = 0;
    const m = manual(100, () => collections++, 1); // every collection takes 1 ms
    m.pacer.pace(100);
    m.flush();
    expect(collections).toBe(1);
    // The next one may not start before 50 ms after the last started (1 ms of work per 50 ms).
    m.advance(48);
    m.pacer.pace(200);
    m.flush();
    expect(collections).toBe(1);
    m.advance(1);
    m.pacer.pace(201); // still owed: the traffic mark did not move
    m.flush();
    expect(collections).toBe(2);
  });

  test("a collector that throws turns pacing off instead of failing the reader", () => {
    let calls = 0;
    const m = manual(100, () => {
      calls++;
      throw new Error("no collector");
    });
    m.pacer.pace(100);
    expect(() => m.flush()).not.toThrow();
    m.pacer.pace(10_000);
    m.flush();
    expect(calls).toBe(1);
  });

  test("the writer counts the long frames it is given, text and bytes alike, and only those", async () => {
    const sink = { write: (chunk: string | Uint8Array) => chunk.length, flush: () => 0 };
    const writer = new FrameWriter(sink);
    expect(writer.longFrames).toBe(0);
    await writer.write('{"a":1}\n');
    await writer.write(new Uint8Array(LONG_FRAME_LENGTH - 1));
    expect(writer.longFrames).toBe(0);
    await writer.write(new Uint8Array(LONG_FRAME_LENGTH));
    writer.send(`${"x".repeat(5000)}\n`);
    await writer.drained();
    expect(writer.longFrames).toBe(LONG_FRAME_LENGTH + 5001);
    // A long text frame that joins a flush someone already awaits is counted too.
    const first = writer.write("a\n");
    const joined = writer.write(`${"y".repeat(6000)}\n`);
    await Promise.all([first, joined]);
    expect(writer.longFrames).toBe(LONG_FRAME_LENGTH + 5001 + 6001);
  });

  test("a line's length: characters of a decoded one, bytes of a split one, the limit for an oversize one", () => {
    expect(lineLength({ kind: "text", text: "abc" }, 100)).toBe(3);
    expect(lineLength({ kind: "line", parts: [new Uint8Array(3), new Uint8Array(4)] }, 100)).toBe(7);
    expect(lineLength({ kind: "unterminated", parts: [new Uint8Array(5)] }, 100)).toBe(5);
    expect(lineLength({ kind: "oversize" }, 100)).toBe(100);
  });

  test("gcPacingBytes must be a finite non-negative number", () => {
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new Extension({ gcPacingBytes: bad, handleUncaught: false })).toThrow("gcPacingBytes must be a finite non-negative number");
    }
    expect(() => new Extension({ gcPacingBytes: 0, handleUncaught: false })).not.toThrow();
  });

  // The reader reports traffic after each read; the host sees nothing of it.
  const echo = (ext: Extension) => ext.tool({ name: "echo", description: "Echo text" }, (args: { text: string }) => ({ content: args.text }));

  async function collectionsDuring(extension: { gcPacingBytes?: number }, calls: number, size: number): Promise<unknown[][]> {
    const gc = spyOn(Bun, "gc").mockImplementation(() => 0);
    // The pacer measures each collection with performance.now() and then waits 49× that long. A frozen clock
    // makes every collection cost 0, so a preempted test process (or an engine collection inside the mock)
    // cannot hold the next one back; the unit tests above cover the 2% cap with their own clock.
    const clock = spyOn(performance, "now").mockReturnValue(0);
    try {
      const { callTool } = await inProcess(echo, { api: "0.1", extension });
      // A request is served once the request side has loaded, so its load-time collection is behind this one.
      await callTool("echo", { text: "loaded" });
      gc.mockClear();
      const text = "z".repeat(size);
      for (let i = 0; i < calls; i++) {
        const reply = await callTool("echo", { text });
        expect(reply.result.content).toBe(text);
        // In-memory reads resolve in microtasks; a real stdin read is an I/O event, after which a scheduled
        // collection runs.
        await Bun.sleep(5);
      }
      return gc.mock.calls;
    } finally {
      clock.mockRestore();
      gc.mockRestore();
    }
  }

  test("once the request side has loaded, one full collection sizes the old generation", async () => {
    const gc = spyOn(Bun, "gc").mockImplementation(() => 0);
    try {
      const { callTool } = await inProcess(echo, { api: "0.1", extension: { gcPacingBytes: 0 } });
      expect((await callTool("echo", { text: "loaded" })).result.content).toBe("loaded");
      expect(gc.mock.calls).toEqual([[true]]);
    } finally {
      gc.mockRestore();
    }
  });

  test("the reader asks for young-generation collections as long-frame traffic passes the budget", async () => {
    // Each call moves ~10 KB in long frames (5 KB in, 5 KB out): with an 8 KiB budget nearly every read collects.
    const calls = await collectionsDuring({ gcPacingBytes: 8192 }, 4, 5000);
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(calls.every((call) => call[0] === false)).toBe(true);
  });

  test("short frames are not paced, however much of them passes", async () => {
    // 100 calls of ~3.2 KB frames each way move ~640 KB, 78 budgets of 8 KiB; none of it is a long frame.
    expect(await collectionsDuring({ gcPacingBytes: 8192 }, 100, 3000)).toHaveLength(0);
  });

  test("the default budget is 512 KiB", async () => {
    expect(GC_PACING_BYTES).toBe(512 * 1024);
    // Two calls move ~2 × 200 KB of long frames: under the default, nothing; ten calls (~2 MB, ~3.8 budgets) collect, but not per read.
    expect(await collectionsDuring({}, 2, 100_000)).toHaveLength(0);
    const crossed = await collectionsDuring({}, 10, 100_000);
    expect(crossed.length).toBeGreaterThanOrEqual(2);
    expect(crossed.length).toBeLessThanOrEqual(4);
  });

  test("gcPacingBytes 0 never collects", async () => {
    expect(await collectionsDuring({ gcPacingBytes: 0 }, 4, 5000)).toHaveLength(0);
  });
});
