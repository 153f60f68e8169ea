/** The worker pool (src/runtime/scheduler.ts): FIFO starts, the concurrency bound, arguments, and a long queue. */
import { expect, test } from "bun:test";
import { Scheduler } from "../../src/runtime/scheduler.ts";

test("jobs start from a microtask, in order, each with its own argument; synchronous ones take no slot", async () => {
  const scheduler = new Scheduler(1, 100);
  const seen: string[] = [];
  const job = (name: string) => void seen.push(name);
  scheduler.run(job, "a");
  scheduler.run(() => void seen.push("closure"));
  scheduler.run(job, "b");
  expect(seen).toEqual([]);
  await Promise.resolve();
  expect(seen).toEqual(["a", "closure", "b"]);
});

test("at most `concurrency` asynchronous jobs run at once, and a queue thousands long starts in arrival order", async () => {
  const scheduler = new Scheduler(3, 10_000);
  let running = 0;
  let most = 0;
  const started: number[] = [];
  const job = async (n: number) => {
    started.push(n);
    running++;
    most = Math.max(most, running);
    await new Promise((resolve) => setTimeout(resolve, n % 7 === 0 ? 1 : 0));
    running--;
  };
  // Enough to pass the point where spent entries are dropped from the front of the queue, with
  // more queued while the first ones run.
  for (let n = 0; n < 2_000; n++) scheduler.run(job, n);
  await new Promise((resolve) => setTimeout(resolve, 5));
  for (let n = 2_000; n < 3_000; n++) scheduler.run(job, n);
  for (let i = 0; i < 200 && started.length < 3_000; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  while (running > 0) await new Promise((resolve) => setTimeout(resolve, 1));
  expect(started.length).toBe(3_000);
  expect(started).toEqual(Array.from({ length: 3_000 }, (_, n) => n));
  expect(most).toBe(3);
}, 20_000);

test("a job that throws frees its slot; the next one starts", async () => {
  const scheduler = new Scheduler(1, 10);
  const seen: number[] = [];
  scheduler.run(() => {
    throw new Error("boom");
  });
  scheduler.run((n: number) => void seen.push(n), 7);
  await Promise.resolve();
  expect(seen).toEqual([7]);
});
