import { describe, expect, spyOn, test } from "bun:test";
import { SlotPool } from "../../src/runtime/slot-pool.ts";

describe("slot pool (src/runtime/slot-pool.ts)", () => {
  test("tryTake takes free slots synchronously and refuses when full", () => {
    const pool = new SlotPool(2);
    expect(pool.tryTake()).toBe(true);
    expect(pool.tryTake()).toBe(true);
    expect(pool.tryTake()).toBe(false);
    expect(pool.used).toBe(2);
  });

  test("a freed slot goes to the longest waiter, not to a newcomer", async () => {
    const pool = new SlotPool(1);
    pool.tryTake();
    const order: string[] = [];
    const first = pool.take().then((o) => order.push(`first:${o}`));
    const second = pool.take().then((o) => order.push(`second:${o}`));
    pool.give();
    expect(pool.tryTake()).toBe(false); // the slot was handed over, not freed
    await first;
    pool.give();
    await second;
    expect(order).toEqual(["first:taken", "second:taken"]);
    pool.give();
    expect(pool.used).toBe(0);
  });

  test("a waiter whose signal aborts ends at once and loses its turn; an aborted signal does not queue", async () => {
    const pool = new SlotPool(1);
    pool.tryTake();
    const controller = new AbortController();
    const waiting = pool.take(controller.signal);
    const next = pool.take();
    controller.abort();
    expect(await waiting).toBe("aborted");
    pool.give(); // goes to `next`, the aborted waiter is gone
    expect(await next).toBe("taken");
    expect(await pool.take(AbortSignal.abort())).toBe("aborted");
    expect(pool.used).toBe(1);
  });

  test("close wakes every waiter with closed and refuses later takes", async () => {
    const pool = new SlotPool(1);
    pool.tryTake();
    const a = pool.take();
    const b = pool.take();
    pool.close();
    expect(await a).toBe("closed");
    expect(await b).toBe("closed");
    expect(pool.tryTake()).toBe(false);
    expect(await pool.take()).toBe("closed");
  });

  test("waiters sharing a signal add one abort listener between them (adding one each is quadratic in the engine)", async () => {
    const pool = new SlotPool(1);
    pool.tryTake();
    const controller = new AbortController();
    const add = spyOn(controller.signal, "addEventListener");
    const remove = spyOn(controller.signal, "removeEventListener");
    const waiting = Array.from({ length: 1000 }, () => pool.take(controller.signal));
    expect(add).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 1000; i++) pool.give();
    expect(await Promise.all(waiting)).toEqual(Array(1000).fill("taken"));
    expect(remove).toHaveBeenCalledTimes(1); // the last waiter leaving drops the listener
    const again = pool.take(controller.signal);
    expect(add).toHaveBeenCalledTimes(2);
    pool.give();
    expect(await again).toBe("taken");
  });

  test("an abort releases every waiter on that signal; the freed slot goes to the next waiter on another signal", async () => {
    const pool = new SlotPool(1);
    pool.tryTake();
    const cancelled = new AbortController();
    const first = pool.take();
    const doomed = Array.from({ length: 5 }, () => pool.take(cancelled.signal));
    const last = pool.take(new AbortController().signal);
    cancelled.abort();
    expect(await Promise.all(doomed)).toEqual(Array(5).fill("aborted"));
    pool.give();
    expect(await first).toBe("taken");
    pool.give(); // skips the aborted ones
    expect(await last).toBe("taken");
    pool.give();
    expect(pool.used).toBe(0);
    expect(pool.tryTake()).toBe(true);
  });

  test("aborted waiters do not pile up behind a live head while no slot frees", async () => {
    const pool = new SlotPool(1);
    pool.tryTake();
    const head = pool.take();
    const controllers = Array.from({ length: 1000 }, () => new AbortController());
    const waiting = controllers.map((c) => pool.take(c.signal));
    const tail = pool.take();
    for (const c of controllers) c.abort();
    expect(await Promise.all(waiting)).toEqual(Array(1000).fill("aborted"));
    expect(pool.queued).toBeLessThan(130); // the head, the tail and fewer than 128 aborted entries
    pool.give();
    expect(await head).toBe("taken");
    pool.give();
    expect(await tail).toBe("taken");
    pool.give();
    expect(pool.used).toBe(0);
    expect(pool.queued).toBe(0);
  });
});
