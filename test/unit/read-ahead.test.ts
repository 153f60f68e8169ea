import { describe, expect, test } from "bun:test";
import { type ReadResult, readAhead } from "../../src/wire/read-ahead.ts";

/** A reader over queued chunks; `null` is EOF. Reads beyond the queue stay pending until `push`. */
function fakeReader(queue: (Uint8Array | null)[]) {
  let waiting: ((r: ReadResult) => void) | undefined;
  let reads = 0;
  const result = (c: Uint8Array | null): ReadResult => (c === null ? { done: true } : { done: false, value: c });
  return {
    get reads() {
      return reads;
    },
    read(): Promise<ReadResult> {
      reads++;
      if (queue.length > 0) return Promise.resolve(result(queue.shift()!));
      return new Promise((resolve) => (waiting = resolve));
    },
    push(c: Uint8Array | null) {
      if (waiting) waiting(result(c));
      else queue.push(c);
      waiting = undefined;
    },
  };
}

const bytes = (n: number) => new Uint8Array(n);
const never = new Promise<void>(() => {});

describe("readAhead (stdin while the host is not reading stdout)", () => {
  test("reaches an EOF behind the look-ahead and returns every chunk before it", async () => {
    const reader = fakeReader([bytes(10), bytes(20), null]);
    const ahead = await readAhead(reader, reader.read(), never, 100);
    expect(ahead.ended).toBe(true);
    expect(ahead.chunks.map((c) => c.length)).toEqual([10, 20]);
  });

  test("when the host reads again, hands back the read still pending", async () => {
    const reader = fakeReader([bytes(10)]);
    let resume!: () => void;
    const resumed = new Promise<void>((r) => (resume = r));
    const pending = readAhead(reader, reader.read(), resumed, 100);
    await Bun.sleep(1);
    resume();
    const ahead = await pending;
    expect(ahead.ended).toBe(false);
    expect(ahead.chunks.map((c) => c.length)).toEqual([10]);
    reader.push(bytes(5));
    expect((await ahead.next!).value!.length).toBe(5);
  });

  test("stops reading once the bound is held, until the host reads again", async () => {
    const reader = fakeReader([bytes(60), bytes(60), bytes(60), null]);
    let resume!: () => void;
    const resumed = new Promise<void>((r) => (resume = r));
    const pending = readAhead(reader, reader.read(), resumed, 100);
    await Bun.sleep(5);
    expect(reader.reads).toBe(2); // 120 bytes held: no third read
    resume();
    const ahead = await pending;
    expect(ahead.ended).toBe(false);
    expect(ahead.chunks.map((c) => c.length)).toEqual([60, 60]);
    expect((await ahead.next!).value!.length).toBe(60);
  });

  test("a read error ends the input with the error", async () => {
    const failing = { read: () => Promise.reject(new Error("boom")) };
    const ahead = await readAhead(failing, Promise.resolve({ done: false, value: bytes(3) }), never, 100);
    expect(ahead.ended).toBe(true);
    expect(ahead.chunks.map((c) => c.length)).toEqual([3]);
    expect((ahead.error as Error).message).toBe("boom");
  });
});
