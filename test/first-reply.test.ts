/**
 * The first reply (src/runtime/first-reply.ts, issue 28's cold start): on stdio the host's initialize is
 * answered from the first read, before the session machinery loads, when it is the whole of what the
 * host wrote first; anything else is handed to the session unanswered and served as before. Both ways
 * must be indistinguishable on the wire: same reply bytes, same state afterwards, warnings logged once.
 * Checked on the build `octet-extension build` makes and from source, over real pipes.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, closeSync, constants, cpSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compiledOnce } from "./helpers.ts";

const SRC = new URL("../src/index.ts", import.meta.url).pathname;
const built = compiledOnce("octet-first-reply-", (dir) => {
  const source = join(dir, "extension.ts");
  writeFileSync(
    source,
    `import { Extension } from ${JSON.stringify(SRC)};
const ext = new Extension({ logLevel: "debug", maxConcurrentRequests: 4 });
ext.tool({ name: "echo", description: "Echo text" }, (args: { text?: string }) => ({ content: args.text ?? "" }));
ext.tool({ name: "stray", description: "Write to stdout behind the runtime's back" }, () => {
  process.stdout.write("stray bytes\\n");
  console.log("from console");
  return { content: "ok" };
});
await ext.run();
`,
  );
  return source;
});

type Frame = Record<string, unknown> & { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } };
type Log = { level: string; message: string } & Record<string, unknown>;

function initialize(api: string, id: unknown = 1, extra: Record<string, unknown> = {}): string {
  const params: Record<string, unknown> =
    api === "0.1"
      ? { api_version: "0.1", contributes: { tools: ["echo", "stray"], commands: [] } }
      : {
          api_version: api,
          contributes: { tools: ["echo", "stray"], commands: [] },
          protocol: { version: api, required_features: ["request_cancellation", "content_parts"], optional_features: ["request_progress"], limits: { max_concurrent_requests: 4 } },
        };
  return JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params: { ...params, ...extra } });
}
const call = (id: number, name: string, args: Record<string, unknown> = {}) => JSON.stringify({ jsonrpc: "2.0", id, method: "tool/call", params: { name, arguments: args } });
const shutdown = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "shutdown" });

/** A process over real pipes: writes are separate `write`s, each flushed; frames and log lines are collected as they come. */
function launch(command: string[], api: string) {
  const child = Bun.spawn(command, { stdin: "pipe", stdout: "pipe", stderr: "pipe", env: { ...process.env, OCTET_EXTENSION_API_VERSION: api } });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const collect = async (stream: ReadableStream<Uint8Array>, into: string[]) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) into.push(decoder.decode(chunk, { stream: true }));
  };
  const done = Promise.all([collect(child.stdout, stdout), collect(child.stderr, stderr)]);
  const lines = (parts: string[]) => parts.join("").split("\n").filter((line) => line !== "");
  return {
    write(text: string) {
      child.stdin.write(text);
      child.stdin.flush();
    },
    end: () => child.stdin.end(),
    frames: () => lines(stdout).map((line) => JSON.parse(line) as Frame),
    rawStdout: () => stdout.join(""),
    logs: () => lines(stderr).map((line) => JSON.parse(line) as Log),
    async waitFrames(count: number): Promise<Frame[]> {
      for (let i = 0; i < 2000 && lines(stdout).length < count; i++) await Bun.sleep(5);
      return this.frames();
    },
    async exit(): Promise<number> {
      const code = await child.exited;
      await done;
      return code;
    },
  };
}

const answeredHere = (logs: Log[]) => logs.filter((l) => l.message === "initialize answered from the first read").length;
const handedOver = (logs: Log[]) => logs.filter((l) => l.message === "first frame handed to the session").length;

describe.each([
  ["compiled with octet-extension build's flags", () => [built.binary]],
  ["from source", () => [process.execPath, built.source]],
])("the first reply, %s", (_label, command) => {
  test.each(["0.1", "0.2", "0.4"])("API %s: the reply written before the session loads is byte for byte the session's own", async (api) => {
    // Alone in its write: answered from the first read.
    const fast = launch(command(), api);
    fast.write(initialize(api) + "\n");
    await fast.waitFrames(1);
    // A request right behind the reply (the request side may still be loading) is served, sealed stdio holds stray writes.
    fast.write(call(2, "stray") + "\n");
    fast.write(call(3, "echo", { text: "after" }) + "\n" + shutdown(4) + "\n");
    const fastFrames = await fast.waitFrames(4);
    fast.end();
    expect(await fast.exit()).toBe(0);
    // With a request behind it in the same write: handed to the session, which answers both.
    const full = launch(command(), api);
    full.write(initialize(api) + "\n" + call(2, "stray") + "\n");
    await full.waitFrames(2);
    full.write(call(3, "echo", { text: "after" }) + "\n" + shutdown(4) + "\n");
    const fullFrames = await full.waitFrames(4);
    full.end();
    expect(await full.exit()).toBe(0);

    expect({ here: answeredHere(fast.logs()), handed: handedOver(fast.logs()) }).toEqual({ here: 1, handed: 0 });
    expect({ here: answeredHere(full.logs()), handed: handedOver(full.logs()) }).toEqual({ here: 0, handed: 1 });
    expect(fast.rawStdout()).toBe(full.rawStdout());
    expect(fastFrames.map((f) => f.id)).toEqual([1, 2, 3, 4]);
    expect(fastFrames[0]!.result!.api_version).toBe(api);
    expect(fast.rawStdout()).not.toContain("stray bytes");
    expect(fast.logs().filter((l) => l.message === "stray bytes" || l.message === "from console").map((l) => l.source)).toEqual(expect.arrayContaining(["stdout", "console"]));
  });

  test("an initialize split over two writes is still answered from the first read; CRLF too", async () => {
    const host = launch(command(), "0.2");
    const line = initialize("0.2") + "\r\n";
    host.write(line.slice(0, 100));
    await Bun.sleep(50);
    host.write(line.slice(100));
    const [reply] = await host.waitFrames(1);
    expect(reply!.id).toBe(1);
    expect((reply!.result!.protocol as { features: string[] }).features).toEqual(["request_cancellation", "content_parts", "request_progress"]);
    host.write(call(2, "echo", { text: "x" }) + "\n");
    expect((await host.waitFrames(2))[1]!.id).toBe(2);
    host.end();
    expect(await host.exit()).toBe(0);
    expect(answeredHere(host.logs())).toBe(1);
  });

  /** API 0.4's initialize with a blob-transfer offer the runtime refuses (a warning at negotiation, the feature left out). */
  const refusedOffer = (id: number) => {
    const message = JSON.parse(initialize("0.4", id)) as { params: { protocol: Record<string, unknown> } };
    Object.assign(message.params.protocol, { bulk_objects_v1: { profile: "not-a-profile", transfer_directory: "relative/dir" }, required_features: ["request_cancellation", "content_parts", "bulk_objects_v1"] });
    return JSON.stringify(message);
  };
  const offerWarnings = (logs: Log[]) => logs.filter((l) => l.message === "bulk_objects_v1 not selected: refusing the host's transfer directory");

  test("a negotiation warning is logged once, whichever way the reply goes", async () => {
    const fast = launch(command(), "0.4");
    fast.write(refusedOffer(1) + "\n");
    await fast.waitFrames(1);
    fast.end();
    expect(await fast.exit()).toBe(0);
    const full = launch(command(), "0.4");
    full.write(refusedOffer(1) + "\n" + call(2, "echo", { text: "x" }) + "\n");
    await full.waitFrames(2);
    full.end();
    expect(await full.exit()).toBe(0);
    expect(fast.rawStdout()).toBe(full.rawStdout().split("\n")[0] + "\n");
    expect((fast.frames()[0]!.result!.protocol as { features: string[] }).features).not.toContain("bulk_objects_v1");
    for (const [host, here] of [[fast, 1], [full, 0]] as const) {
      expect({ here: answeredHere(host.logs()), handed: handedOver(host.logs()) }).toEqual({ here, handed: 1 - here });
      expect(offerWarnings(host.logs())).toEqual([{ level: "warning", message: "bulk_objects_v1 not selected: refusing the host's transfer directory", transfer_directory: "relative/dir", reason: "the offer is not a local-file.v1 offer" }]);
    }
  });

  test("a first frame that is not initialize is the session's: refused, then a failing and a good initialize, each logged once", async () => {
    const host = launch(command(), "0.4");
    host.write(call(1, "echo") + "\n");
    await host.waitFrames(1);
    host.write(initialize("0.4", 2, { api_version: "9.9" }) + "\n");
    await host.waitFrames(2);
    host.write(refusedOffer(3) + "\n");
    const frames = await host.waitFrames(3);
    host.end();
    expect(await host.exit()).toBe(0);
    expect(frames[0]).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32600, message: "initialize must be the first request" } });
    expect(frames[1]!.error!.code).toBe(-32000);
    expect(frames[1]!.error!.message).toStartWith("unsupported API version");
    expect(frames[2]!.id).toBe(3);
    const logs = host.logs();
    expect(logs.filter((l) => l.message === "initialize failed")).toHaveLength(1);
    expect(offerWarnings(logs)).toHaveLength(1);
    expect({ here: answeredHere(logs), handed: handedOver(logs) }).toEqual({ here: 0, handed: 1 });
  });

  test("a first initialize whose negotiation fails is answered by the session, once, and a second one succeeds", async () => {
    const host = launch(command(), "0.2");
    host.write(initialize("0.2", 1, { contributes: { tools: ["echo"], commands: [] } }) + "\n");
    const [refused] = await host.waitFrames(1);
    expect(refused!.error).toMatchObject({ code: -32602, message: "registered tools do not match manifest declarations" });
    host.write(initialize("0.2", 2) + "\n");
    expect((await host.waitFrames(2))[1]!.result!.api_version).toBe("0.2");
    host.end();
    expect(await host.exit()).toBe(0);
    const logs = host.logs();
    expect(logs.filter((l) => l.message === "initialize failed")).toHaveLength(1);
    expect({ here: answeredHere(logs), handed: handedOver(logs) }).toEqual({ here: 0, handed: 1 });
  });

  test("a first line over the frame limit is refused -32700 by the session as soon as it is over, then initialize is served", async () => {
    const host = launch(command(), "0.2");
    // Content and a CR may take limit + 1 bytes: two more, with no LF yet, are already oversize.
    host.write(`{"${"x".repeat(1_048_576)}`);
    const [refused] = await host.waitFrames(1);
    expect(refused).toMatchObject({ id: null, error: { code: -32700 } });
    host.write("still the same line\n" + initialize("0.2", 2) + "\n");
    expect((await host.waitFrames(2))[1]!.id).toBe(2);
    host.write(initialize("0.2", 3, { padding: "x".repeat(1_048_576) }) + "\n");
    expect((await host.waitFrames(3))[2]).toMatchObject({ id: null, error: { code: -32700 } });
    host.end();
    expect(await host.exit()).toBe(0);
  });

  test("end of input before any frame: no output, exit 0", async () => {
    const host = launch(command(), "0.2");
    host.end();
    expect(await host.exit()).toBe(0);
    expect(host.rawStdout()).toBe("");
    expect(answeredHere(host.logs())).toBe(0);
  });
});

test("a session chunk that cannot load (a broken installation): initialize was answered, the failure is logged and the process exits 1", async () => {
  const dir = mkdtempSync(join(tmpdir(), "octet-broken-session-"));
  try {
    cpSync(new URL("../src", import.meta.url).pathname, join(dir, "src"), { recursive: true });
    appendFileSync(join(dir, "src/runtime/serve-connection.ts"), '\nthrow new Error("chunk missing");\n');
    const source = join(dir, "extension.ts");
    writeFileSync(source, `import { Extension } from "./src/index.ts";\nconst ext = new Extension();\next.tool({ name: "echo", description: "Echo" }, () => "x");\next.tool({ name: "stray", description: "Stray" }, () => "x");\nawait ext.run();\n`);
    const host = launch([process.execPath, source], "0.2");
    host.write(initialize("0.2") + "\n");
    expect(await host.exit()).toBe(1);
    expect(host.frames().map((f) => f.id)).toEqual([1]);
    expect(host.logs().filter((l) => l.level === "error")).toEqual([{ level: "error", message: "the session code of the runtime could not be loaded", error: "chunk missing" }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe.each([
  ["compiled with octet-extension build's flags", () => [built.binary]],
  ["from source", () => [process.execPath, built.source]],
])("a host that closes stdout before reading the initialize reply, %s", (_label, command) => {
  test.each([
    ["alone in its write (answered from the first read)", ""],
    ["with a request behind it (answered by the session)", call(2, "echo", { text: "x" }) + "\n"],
  ])("initialize %s: the closed stream is logged, and stdin's end still ends the process (status 0)", async (_case, behind) => {
    // stdout is a pipe whose read end is closed before the process starts: every write to it fails
    // (EPIPE). A FIFO makes that certain; closing a spawned pipe's reader raced the first write.
    const dir = mkdtempSync(join(tmpdir(), "octet-closed-stdout-"));
    const fifo = join(dir, "stdout");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY);
    closeSync(reader);
    const child = Bun.spawn(command(), { stdin: "pipe", stdout: writer, stderr: "pipe", env: { ...process.env, OCTET_EXTENSION_API_VERSION: "0.2" } });
    closeSync(writer);
    rmSync(dir, { recursive: true, force: true });
    child.stdin.write(initialize("0.2") + "\n" + behind);
    child.stdin.flush();
    await Bun.sleep(300);
    child.stdin.end();
    const exited = await Promise.race([child.exited, Bun.sleep(5_000).then(() => "still running" as const)]);
    if (exited === "still running") child.kill();
    const logs = (await new Response(child.stderr).text()).split("\n").filter(Boolean).map((line) => JSON.parse(line) as Log);
    expect(exited).toBe(0);
    expect(logs.filter((l) => l.message === "extension protocol stream closed")).toHaveLength(1);
  });
});
