import { describe, expect, test } from "bun:test";
import { edenGC, fullGC, heapStats } from "bun:jsc";
import { inProcess } from "./harness.ts";

/**
 * What bursts of requests leave to the old generation once they are answered (docs/performance-log.md,
 * "The request table's map"). While the request table's `Map` grew and shrank with every burst, a
 * young collection kept about half of every 64-frame burst alive (until a full one), so the old
 * generation grew with every burst; now what survives does not grow with the number of bursts.
 */
describe("bursts of answered requests are young garbage", () => {
  test("fifteen 64-frame chunks, answered: fewer than three chunks' frames survive young collections", async () => {
    const h = await inProcess((ext) => ext.tool({ name: "echo", description: "d" }, (args: { text: string }) => ({ content: args.text })), { api: "0.1" });
    // Each frame holds five arrays (JSON makes nothing else that heapStats counts apart from the harness's objects).
    const ARRAYS_PER_FRAME = 5;
    let id = 1000;
    const burst = async () => {
      const ids = Array.from({ length: 64 }, () => id++);
      h.sendChunk(ids.map((n) => ({ id: n, method: "tool/call", params: { name: "echo", arguments: { text: "t", tags: [[], [], [], []] } } })));
      await h.waitFor((f) => f.id === ids[63]);
    };
    const tick = () => new Promise((resolve) => setTimeout(resolve, 2));
    for (let i = 0; i < 20; i++) await burst();
    await tick();
    fullGC();
    // A young collection after each burst, as a busy session has them every few bursts.
    for (let i = 0; i < 15; i++) {
      await burst();
      await tick();
      edenGC();
    }
    const afterYoung = heapStats().objectTypeCounts.Array ?? 0;
    fullGC();
    const afterFull = heapStats().objectTypeCounts.Array ?? 0;
    expect(h.frames.filter((f) => typeof f.id === "number" && f.id >= 1000 && !("error" in f))).toHaveLength(35 * 64);
    // Garbage that only the full collection found survived a young one; before the fix ~38 frames a burst did.
    const survivedFrames = (afterYoung - afterFull) / ARRAYS_PER_FRAME;
    expect(survivedFrames).toBeLessThan(3 * 64);
  });
});
