/** FrameWriter's `detach` hook (src/wire/frame-writer.ts): called before each continuation the writer schedules, once per flush cycle. */
import { expect, test } from "bun:test";
import { FrameWriter } from "../../src/wire/frame-writer.ts";

test("detach runs once per flush cycle, before the cycle is scheduled, and before waiting for a write the sink buffered", async () => {
  const events: string[] = [];
  let buffered = false;
  const sink = {
    write: (chunk: string | Uint8Array) => {
      events.push(`write ${String(chunk).split("\n").filter(Boolean).length}`);
      return buffered ? Promise.resolve(chunk.length) : chunk.length;
    },
    flush: () => (events.push("flush"), 0),
  };
  const writer = new FrameWriter(sink, () => {}, () => events.push("detach"));
  // The first cycle holds its frames until its flush completed (the sink may be switched then).
  writer.send(`{"n":0}\n`);
  await writer.drained();
  events.length = 0;
  for (let i = 1; i <= 3; i++) writer.send(`{"n":${i}}\n`);
  expect(events).toEqual(["detach"]);
  await writer.drained();
  expect(events).toEqual(["detach", "write 3", "flush"]);
  // A frame filling 64 KiB is handed over at once; a sink that buffers it returns a promise, awaited after detaching.
  events.length = 0;
  buffered = true;
  writer.send(`{"text":"${"x".repeat(70_000)}"}\n`);
  expect(events).toEqual(["write 1", "detach", "detach"]);
  await writer.drained();
  expect(events).toEqual(["write 1", "detach", "detach", "flush"]);
});
