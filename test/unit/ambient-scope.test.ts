import { describe, expect, test } from "bun:test";
import { currentRequestId } from "octet-extension";
import { CancellationToken } from "../../src/runtime/cancellation.ts";
import { Scheduler } from "../../src/runtime/scheduler.ts";
import { currentScope, leaveScope, runEntered } from "../../src/runtime/scope.ts";
import { inProcess } from "./harness.ts";

/**
 * The ambient request (`currentRequestId`, `ext.progress` without an id, host calls' parent) when the
 * worker pool runs several handlers in one turn: each handler and every continuation it makes sees its
 *  own request; nothing after the turn sees any (scope.ts `runEntered`, docs/design.md).
 */
describe("ambient request scope across one worker-pool turn", () => {
  test("sync and async handlers of one chunk, and the continuations they make, each see their own request", async () => {
    const seen = { sync: [] as [unknown, unknown][], async: [] as [unknown, unknown][], later: [] as [unknown, unknown][] };
    const h = await inProcess((ext) => {
      ext.tool({ name: "sync", description: "d" }, (_args, ctx) => {
        seen.sync.push([ctx.requestId, currentRequestId()]);
        // A continuation made by a synchronous handler runs after its reply, still in its scope.
        void Promise.resolve().then(() => seen.later.push([ctx.requestId, currentRequestId()]));
        setTimeout(() => seen.later.push([ctx.requestId, currentRequestId()]), 0);
        return "s";
      });
      ext.tool({ name: "async", description: "d" }, async (_args, ctx) => {
        await Promise.resolve();
        await new Promise((resolve) => setTimeout(resolve, 1));
        seen.async.push([ctx.requestId, currentRequestId()]);
        return "a";
      });
    });
    const ids = [201, 202, 203, 204, 205, 206];
    h.sendChunk(ids.map((id, i) => ({ id, method: "tool/call", params: { name: i % 2 === 0 ? "sync" : "async", arguments: {} } })));
    for (const id of ids) await h.waitFor((f) => f.id === id && !("method" in f));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(seen.sync).toEqual([[201, 201], [203, 203], [205, 205]]);
    expect(seen.async.map(([own, ambient]) => own === ambient)).toEqual([true, true, true]);
    expect(seen.later).toHaveLength(6);
    for (const [own, ambient] of seen.later) expect(ambient).toBe(own);
    expect(currentRequestId()).toBeUndefined();
  });

  test("a handler that writes first in a flush cycle (the writer schedules its flush then) keeps its scope across its awaits", async () => {
    const seen: [unknown, unknown][] = [];
    const h = await inProcess(
      (ext) =>
        ext.tool({ name: "step", description: "d" }, async (_args, ctx) => {
          await ext.progress("first"); // the first frame of a flush cycle: the writer schedules the flush here
          seen.push([ctx.requestId, currentRequestId()]);
          await new Promise((resolve) => setTimeout(resolve, 1));
          await ext.progress("second");
          seen.push([ctx.requestId, currentRequestId()]);
          return "done";
        }),
      { features: ["request_progress"] },
    );
    h.sendChunk([401, 402].map((id) => ({ id, method: "tool/call", params: { name: "step", arguments: {} } })));
    for (const id of [401, 402]) await h.waitFor((f) => f.id === id && !("method" in f));
    expect(seen.sort()).toEqual([[401, 401], [401, 401], [402, 402], [402, 402]]);
    expect(h.frames.filter((f) => f.method === "$/progress")).toHaveLength(4);
  });

  test("a pool turn ends the scope its jobs entered; leaveScope ends it for what follows", async () => {
    const scope = { id: 7, method: "tool/call", token: new CancellationToken() };
    const scheduler = new Scheduler(0, 10); // no worker yet: the job waits
    const during: unknown[] = [];
    scheduler.run(() => void runEntered(scope, () => during.push(currentScope()?.id), 0, 0, 0));
    scheduler.setConcurrency(1); // runs the turn here, synchronously
    expect(during).toEqual([7]);
    expect(currentScope()).toBeUndefined();
    // Outside a pool turn: the store stays entered until left.
    runEntered(scope, () => undefined, 0, 0, 0);
    expect(currentScope()?.id).toBe(7);
    leaveScope();
    const later = await Promise.resolve().then(() => currentScope());
    expect(later).toBeUndefined();
    expect(currentScope()).toBeUndefined();
  });
});
