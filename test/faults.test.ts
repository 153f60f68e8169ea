/**
 * Faults a real author produces (issue 11): large synchronous writes to fds 1
 * and 2 behind the runtime's back. Fixture: test/fixtures/faults/.
 */
import { describe, expect, test } from "bun:test";
import { closeSync, constants, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { temporaryDirectory } from "octet-extension/testing";
import { pathWithBun } from "../src/testing/launch.ts";
import { expectCleanStreams, ready, spawnRaw } from "./helpers.ts";

const V02 = new URL("./fixtures/faults/faults-v02", import.meta.url).pathname;
const MiB = 1024 * 1024;

/** Lines the fixture's payload has for `bytes` (100-byte lines), or fold's 99-character lines for children (the last ended by echo). */
const expectedLines = (path: string, bytes: number) => (path.includes("spawn") ? Math.ceil(bytes / 99) : Math.ceil(bytes / 100));

describe("synchronous writes of any size to fds 1 and 2 become log lines; the extension keeps serving", () => {
  const cases: [string, number][] = [
    ["fs1", MiB],
    ["fs2", MiB],
    ["bun-stdout", MiB],
    ["spawn-sync", MiB],
    ["node-spawn-sync", MiB],
    ["fs1", 16 * MiB],
    ["fs2", 16 * MiB],
    ["bun-stdout", 16 * MiB],
    ["spawn-sync", 16 * MiB],
  ];
  test.each(cases)("%s, %d bytes", async (path, bytes) => {
    // Every line is counted below: keep them all (the default window keeps the latest 4 Mi units).
    const host = await ready(V02, { stderrWindow: Infinity });
    expect(await host.callTool("flood", { path, bytes })).toEqual({ content: [{ type: "text", text: `flooded ${path}` }], is_error: false, metadata: {} });
    // Still serving: the next call, and a cancellation, are answered.
    expect(await host.callTool("echo", { text: "after" })).toMatchObject({ content: [{ text: "after" }] });
    const waiting = host.request("tool/call", { name: "wait", arguments: {}, context: host.executionContext() }, { id: 9001 });
    host.cancel(9001);
    expect(await waiting).toMatchObject({ id: 9001 });
    // Every line arrives on stderr as a structured record, in order, with its source, while serving.
    const mark = path.includes("spawn") ? (path === "spawn-sync" ? "z" : "n") : `${path} `;
    const ours = () => host.logs().filter((r) => typeof r.message === "string" && (r.message as string).startsWith(mark));
    const deadline = performance.now() + 30_000;
    while (host.stderr.length < expectedLines(path, bytes) && performance.now() < deadline) await Bun.sleep(50);
    while (ours().length < expectedLines(path, bytes) && performance.now() < deadline) await Bun.sleep(250);
    const lines = ours();
    expect(lines.length).toBe(expectedLines(path, bytes));
    if (!path.includes("spawn")) expect(lines.map((r) => (r.message as string).split(" ")[1])).toEqual(Array.from({ length: lines.length }, (_, i) => String(i)));
    expect(new Set(lines.map((r) => r.source))).toEqual(new Set([path === "fs2" ? "stderr" : "stdout"]));
    expect(await host.shutdown()).toBe(0);
    expectCleanStreams(host);
  }, 60_000);
});

test("at exit, stray output still unread is logged for at most 750 ms, then counted: the process exits within octet's 2 s", async () => {
  const host = await ready(V02, { stderrWindow: Infinity });
  await host.callTool("flood", { path: "fs1", bytes: 64 * MiB });
  expect(await host.shutdown()).toBe(0); // throws if the exit took longer than octet allows
  const logged = host.logs().filter((r) => typeof r.message === "string" && (r.message as string).startsWith("fs1 ")).length;
  const dropped = host.logs().find((r) => r.message === "stray output not logged before exit");
  // Either everything made it, or the rest is counted (never silently lost).
  if (dropped) expect((dropped.bytes as number) + logged * 100).toBeGreaterThanOrEqual(64 * MiB);
  else expect(logged).toBe(Math.ceil((64 * MiB) / 100));
}, 60_000);

describe("a host that stops reading stdout but keeps writing", () => {
  const rssKiB = async (pid: number, key: "VmRSS" | "VmHWM") => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(await Bun.file(`/proc/${pid}/status`).text())?.[1]);

  test("4,000 calls of 64 KiB: the extension stops reading instead of piling up replies, then answers every call once", async () => {
    const { proc } = spawnRaw(V02);
    const encoder = new TextEncoder();
    const send = (frame: object) => proc.stdin.write(encoder.encode(`${JSON.stringify({ jsonrpc: "2.0", ...frame })}\n`));
    const replies = new Map<number, number>();
    let reading = true;
    let resumeReading: () => void = () => {};
    const reader = (async () => {
      const stream = proc.stdout.getReader();
      let partial = "";
      const decoder = new TextDecoder();
      for (;;) {
        while (!reading) await new Promise<void>((resolve) => (resumeReading = resolve));
        const { done, value } = await stream.read();
        if (done) break;
        const lines = (partial + decoder.decode(value, { stream: true })).split("\n");
        partial = lines.pop()!;
        for (const line of lines) {
          const frame = JSON.parse(line);
          if (frame.id !== undefined) replies.set(frame.id, (replies.get(frame.id) ?? 0) + 1);
        }
      }
    })();
    send({ id: 1, method: "initialize", params: { api_version: "0.2", contributes: { tools: ["flood", "stubborn", "echo", "wait"], commands: [] }, protocol: { version: "0.2", required_features: ["request_cancellation", "content_parts"], optional_features: [], limits: { max_concurrent_requests: 4 } } } });
    await proc.stdin.flush();
    const text = "y".repeat(64 * 1024);
    const call = (id: number) => send({ id, method: "tool/call", params: { name: "echo", arguments: { text } } });
    // Warm up while reading, then take the baseline.
    for (let id = 2; id < 52; id++) call(id);
    await proc.stdin.flush();
    while (replies.size < 51) await Bun.sleep(10);
    const baseline = await rssKiB(proc.pid, "VmRSS");
    // Stop reading; keep writing until the extension stops taking input (the pipe to it fills).
    reading = false;
    let id = 52;
    let stalled = false;
    const writing = (async () => {
      for (; id < 52 + 4000; id++) {
        call(id);
        await proc.stdin.flush();
      }
    })();
    for (let seen = -1; !stalled && id < 52 + 4000; ) {
      await Bun.sleep(500);
      stalled = id === seen;
      seen = id;
    }
    const stalledAt = id - 52;
    const whileStalled = await rssKiB(proc.pid, "VmRSS");
    // Read again: everything is served.
    reading = true;
    resumeReading();
    await writing;
    while (replies.size < 4051) await Bun.sleep(20);
    const peak = await rssKiB(proc.pid, "VmHWM");
    send({ id: 99999, method: "shutdown" });
    await proc.stdin.flush();
    expect(await proc.exited).toBe(0);
    await reader;
    console.log(`backpressure: stalled after ${stalledAt} of 4000 calls; RSS baseline ${(baseline / 1024).toFixed(1)} MiB, while stalled +${((whileStalled - baseline) / 1024).toFixed(1)} MiB, peak +${((peak - baseline) / 1024).toFixed(1)} MiB; ${replies.size - 2} echo calls answered once`);
    expect(stalled).toBe(true);
    expect(peak - baseline).toBeLessThan(64 * 1024);
    expect([...replies.values()].every((n) => n === 1)).toBe(true);
    expect(replies.size).toBe(4052);
  }, 120_000);

  test("then closes stdin: the extension reads ahead to the EOF, drains (transport_lost) and exits 0 within the drain budget", async () => {
    const { proc } = spawnRaw(V02, "pipe");
    try {
      const encoder = new TextEncoder();
      const send = (frame: object) => proc.stdin.write(encoder.encode(`${JSON.stringify({ jsonrpc: "2.0", ...frame })}\n`));
      const logs: Record<string, unknown>[] = [];
      const stderr = (async () => {
        let partial = "";
        for await (const chunk of proc.stderr) {
          const lines = (partial + new TextDecoder().decode(chunk)).split("\n");
          partial = lines.pop()!;
          for (const line of lines) if (line.trim() !== "") logs.push(JSON.parse(line));
        }
      })();
      const started = () => logs.filter((r) => r.message === "stubborn started").length;
      send({ id: 1, method: "initialize", params: { api_version: "0.2", contributes: { tools: ["flood", "stubborn", "echo", "wait"], commands: [] }, protocol: { version: "0.2", required_features: ["request_cancellation", "content_parts"], optional_features: [], limits: { max_concurrent_requests: 4 } } } });
      await proc.stdin.flush();
      // stdout is read up to the initialize reply, then never again.
      const stdout = proc.stdout.getReader();
      for (let seen = ""; !seen.includes("\n"); ) seen += new TextDecoder().decode((await stdout.read()).value);
      // Flood pairs of calls (a 64 KiB echo, then a call that logs when it runs) until one pair is no
      // longer dispatched: the extension has paused on its 4 MiB backlog. That pair waits unread; close.
      const text = "y".repeat(64 * 1024);
      let pairs = 0;
      for (let paused = false; !paused && pairs < 400; ) {
        send({ id: 2 + 2 * pairs, method: "tool/call", params: { name: "echo", arguments: { text } } });
        send({ id: 3 + 2 * pairs, method: "tool/call", params: { name: "stubborn", arguments: { ms: 0 } } });
        void proc.stdin.flush();
        pairs++;
        for (const deadline = performance.now() + 2_000; started() < pairs && performance.now() < deadline; ) await Bun.sleep(5);
        paused = started() < pairs;
      }
      expect(pairs).toBeLessThan(400);
      const closedAt = performance.now();
      void proc.stdin.end();
      const code = await Promise.race([proc.exited, Bun.sleep(10_000).then(() => "still running 10 s after EOF")]);
      const exitMs = performance.now() - closedAt;
      console.log(`EOF behind a stalled host: paused after ${pairs - 1} pairs of calls; exit ${code} ${(exitMs / 1000).toFixed(2)} s after stdin was closed`);
      expect(code).toBe(0);
      expect(exitMs).toBeLessThan(10_000);
      await stderr;
      // EOF was read ahead while paused; the frames before it were still routed (the last pair ran), then the drain.
      expect(logs.filter((r) => r.message === "stdin ended while the host was not reading stdout")).toHaveLength(1);
      expect(logs.filter((r) => r.message === "extension stdin closed")).toHaveLength(1);
      expect(started()).toBe(pairs);
    } finally {
      proc.kill();
    }
  }, 60_000);
});

describe("launched as octet launches (real pipes, stderr to a file: fds 1 and 2 are reopened, no FFI)", () => {
  /** A FIFO opened read-write on our side (so no open blocks) and with `childFlags` for the child. */
  const fifo = (childFlags: number) => {
    const dir = temporaryDirectory("fifo-");
    const path = join(dir, "fifo");
    expect(Bun.spawnSync(["mkfifo", path]).exitCode).toBe(0);
    return { ours: openSync(path, constants.O_RDWR), theirs: openSync(path, childFlags) };
  };

  test("stray output becomes log lines in the stderr file; frames stay clean", async () => {
    const stdin = fifo(constants.O_RDONLY);
    const stdout = fifo(constants.O_WRONLY);
    const stderrPath = join(temporaryDirectory("stderr-"), "stderr.log");
    const stderr = openSync(stderrPath, "a");
    const dir = V02;
    const env = { PATH: pathWithBun(process.env.PATH), OCTET_EXTENSION_NAME: "faults-v02", OCTET_EXTENSION_API_VERSION: "0.2", OCTET_EXTENSION_DIR: dir };
    const proc = Bun.spawn([join(dir, "extension")], { stdin: stdin.theirs, stdout: stdout.theirs, stderr, env, cwd: temporaryDirectory("ws-") });
    for (const fd of [stdin.theirs, stdout.theirs, stderr]) closeSync(fd);
    const input = Bun.file(stdin.ours).writer();
    const lines: string[] = [];
    const reading = (async () => {
      let partial = "";
      try {
        for await (const chunk of Bun.file(stdout.ours).stream()) {
          const parts = (partial + new TextDecoder().decode(chunk)).split("\n");
          partial = parts.pop()!;
          lines.push(...parts);
        }
      } catch {
        /* closed */
      }
    })();
    const send = (frame: object) => {
      input.write(`${JSON.stringify({ jsonrpc: "2.0", ...frame })}\n`);
      void input.flush();
    };
    send({ id: 1, method: "initialize", params: { api_version: "0.2", contributes: { tools: ["flood", "stubborn", "echo", "wait"], commands: [] }, protocol: { version: "0.2", required_features: ["request_cancellation", "content_parts"], optional_features: [], limits: { max_concurrent_requests: 4 } } } });
    send({ id: 2, method: "tool/call", params: { name: "flood", arguments: { path: "fs1", bytes: 1024 * 1024 } } });
    send({ id: 3, method: "shutdown" });
    expect(await proc.exited).toBe(0);
    // Our side holds both ends of each FIFO, so the read never ends by itself: wait for the three replies.
    for (const deadline = performance.now() + 5_000; lines.length < 3 && performance.now() < deadline; ) await Bun.sleep(10);
    closeSync(stdin.ours);
    void reading;
    expect(lines.map((l) => JSON.parse(l).id)).toEqual([1, 2, 3]);
    const records = readFileSync(stderrPath, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l));
    expect(records.filter((r) => String(r.message).startsWith("fs1 ")).length).toBe(Math.ceil((1024 * 1024) / 100));
  }, 60_000);
});

describe("a handler that ignores cancellation", () => {
  test("is answered -32800 within the grace, keeps running in the background, and never gets a second reply; its slot is lent out", async () => {
    const host = await ready(V02);
    const context = host.executionContext();
    // Eight stubborn handlers fill the negotiated concurrency (8); all are cancelled at once.
    const ids = Array.from({ length: 8 }, (_, i) => 7001 + i);
    const replies = ids.map((id) => host.request("tool/call", { name: "stubborn", arguments: { ms: 3_000 }, context }, { id }));
    // Cancel once every handler runs (a request cancelled before it starts never runs at all).
    for (const deadline = performance.now() + 5_000; host.logs().filter((r) => r.message === "stubborn started").length < 8 && performance.now() < deadline; ) await Bun.sleep(10);
    expect(host.logs().filter((r) => r.message === "stubborn started")).toHaveLength(8);
    const cancelledAt = performance.now();
    for (const id of ids) host.cancel(id, "user");
    for (const reply of replies) expect(await reply).toMatchObject({ error: { code: -32800, data: { reason: "user" } } });
    const answeredAfter = performance.now() - cancelledAt;
    expect(answeredAfter).toBeLessThan(1_900); // octet's grace is 2 s
    // With every slot still held by a stuck handler, other work runs at once.
    const echoAt = performance.now();
    expect(await host.callTool("echo", { text: "still serving" })).toMatchObject({ content: [{ text: "still serving" }] });
    expect(performance.now() - echoAt).toBeLessThan(1_000);
    // The handlers finish later; nothing more is written for their ids.
    for (const deadline = performance.now() + 10_000; host.logs().filter((r) => r.message === "stubborn finished").length < 8 && performance.now() < deadline; ) await Bun.sleep(50);
    expect(host.logs().filter((r) => r.message === "stubborn finished")).toHaveLength(8);
    expect(host.logs().filter((r) => r.message === "handler did not stop after cancellation: answered -32800, still running")).toHaveLength(8);
    expect(await host.callTool("echo", { text: "after" })).toMatchObject({ content: [{ text: "after" }] });
    const framesFor = (id: number) => host.transcript.filter((e) => e.from === "extension" && JSON.parse(e.text).id === id).length;
    for (const id of ids) expect(framesFor(id)).toBe(1);
    expect(await host.shutdown()).toBe(0);
    // Logged by the runtime after each "stubborn finished": stderr may trail, so judged once it is drained.
    expect(host.logs().filter((r) => r.message === "cancelled handler finished after its reply")).toHaveLength(8);
    expectCleanStreams(host);
    console.log(`stuck handlers: 8 cancelled, answered -32800 after ${answeredAfter.toFixed(0)} ms`);
  }, 30_000);
});
