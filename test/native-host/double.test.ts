/**
 * The host double (`native-host/bin/octet-host-double`) itself, at the process level:
 * raw bytes over pipes, no client library. What it must do is spec
 * docs/native-host-protocol.md §2–§13 and §17; `native-host/host-double/scenario.ts` defines
 * its scripts.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { temporaryDirectory } from "octet-extension/testing";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { buildCatalog } from "../../native-host/host-double/catalog.ts";
import { decodeRequestLine } from "../../native-host/host-double/decode.ts";
import { hostDoublePath, type Scenario, type Step } from "octet-native-host/testing";
import { validateRun } from "../../native-host/host-double/validate-run.ts";
import { eventually } from "./client-helpers.ts";

const DOUBLE = hostDoublePath;
const MAIN = resolve(import.meta.dir, "../../native-host/host-double/main.ts");
const LIMIT = 1_048_576;

/** The seed's hello reply for request `probe-1`, byte for byte. */
const SEED_HELLO =
  '{"protocol_version":1,"request_id":"probe-1","seq":1,"type":"hello","data":{"sdk_version":"0.8.0","protocol_version":1,"max_frame_bytes":1048576,"max_concurrent_runs":1,"commands":["hello","models","run","shutdown"],"features":{"streaming":true,"persistent_sessions":true,"seed_history":true,"typed_media_input":true,"typed_image_input":true,"typed_audio_input":true,"prompt_display_text":true,"inline_models":true,"tools":true,"skills":true,"extensions":true,"process_group_abort":true,"in_band_abort":false}}}';

type Event = Record<string, unknown> & { seq: number; type: string; request_id?: string; data: Record<string, unknown> };

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = temporaryDirectory(prefix);
  tempDirs.push(dir);
  return dir;
}

interface Started {
  pid: number;
  workspace: string;
  record: string;
  /** Write raw text to stdin. */
  send(text: string | Uint8Array): void;
  /** Write to a double that may already have exited: a broken pipe (EPIPE) is expected, not a failure. */
  sendToExiting(text: string): Promise<void>;
  /** Close stdin. */
  end(): void;
  /** The next stdout line (without LF); fails after `ms`. */
  line(ms?: number): Promise<string>;
  event(ms?: number): Promise<Event>;
  /** Lines until (and including) a terminal event. */
  untilTerminal(ms?: number): Promise<Event[]>;
  /** Every remaining stdout byte (after the process closed stdout). */
  rest(): Promise<string>;
  /** Trailing bytes without LF seen so far. */
  partial(): string;
  /** Whole lines received and not yet taken. */
  unread(): number;
  /** stderr received so far. */
  stderr(): string;
  /** All of stderr, once the double's stderr is closed and drained. */
  stderrDone: Promise<string>;
  exited: Promise<number | null>;
  signalCode(): number | NodeJS.Signals | null;
  recorded(): string;
}

const running: { pid: number; done: boolean }[] = [];
afterEach(() => {
  for (const proc of running.splice(0)) {
    if (proc.done) continue;
    try {
      process.kill(-proc.pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
});

const TERMINAL = new Set(["hello", "models", "shutdown", "final_result", "protocol_error"]);

function start(scenario?: Scenario | string, options: { cwd?: string; env?: Record<string, string> } = {}): Started {
  const workspace = tempDir("octet-dbl-ws-");
  const record = join(tempDir("octet-dbl-rec-"), "received.txt");
  const env: Record<string, string> = {
    PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: workspace,
    OCTET_HOST_DOUBLE_RECORD: record,
    ...options.env,
  };
  if (scenario !== undefined) {
    const text = typeof scenario === "string" ? scenario : JSON.stringify(scenario);
    // One environment string is capped at 128 KiB by the kernel: large scenarios go through a file.
    if (text.length > 100_000) {
      const file = join(tempDir("octet-dbl-scn-"), "scenario.json");
      writeFileSync(file, text);
      env.OCTET_HOST_DOUBLE_SCENARIO = file;
    } else env.OCTET_HOST_DOUBLE_SCENARIO = text;
  }
  const proc = Bun.spawn([DOUBLE], { cwd: options.cwd ?? workspace, env, stdin: "pipe", stdout: "pipe", stderr: "pipe", detached: true });
  const entry = { pid: proc.pid, done: false };
  running.push(entry);

  const stdoutDecoder = new TextDecoder();
  const stderrDecoder = new TextDecoder();
  let buffered = "";
  let closed = false;
  const lines: string[] = [];
  let wake: (() => void) | undefined;
  let err = "";
  void (async () => {
    for await (const chunk of proc.stdout) {
      buffered += stdoutDecoder.decode(chunk, { stream: true });
      let lf: number;
      while ((lf = buffered.indexOf("\n")) !== -1) {
        lines.push(buffered.slice(0, lf));
        buffered = buffered.slice(lf + 1);
      }
      wake?.();
    }
    closed = true;
    wake?.();
  })();
  const stderrDone = (async () => {
    for await (const chunk of proc.stderr) err += stderrDecoder.decode(chunk, { stream: true });
    err += stderrDecoder.decode();
    return err;
  })();
  const exited = proc.exited.then((code) => {
    entry.done = true;
    return code;
  });

  const line = async (ms = 10_000): Promise<string> => {
    const deadline = Date.now() + ms;
    while (lines.length === 0) {
      if (closed) throw new Error(`stdout closed; partial ${JSON.stringify(buffered)}; stderr ${err}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no line within ${ms} ms; stderr ${err}`);
      await new Promise<void>((res) => {
        wake = res;
        setTimeout(res, Math.min(left, 50));
      });
    }
    return lines.shift() as string;
  };
  const event = async (ms?: number) => JSON.parse(await line(ms)) as Event;
  return {
    pid: proc.pid,
    workspace,
    record,
    send: (text) => {
      proc.stdin.write(text);
      proc.stdin.flush();
    },
    sendToExiting: async (text) => {
      try {
        proc.stdin.write(text);
        await proc.stdin.flush();
      } catch (error) {
        if ((error as { code?: string }).code !== "EPIPE") throw error;
      }
    },
    end: () => void proc.stdin.end(),
    line,
    event,
    untilTerminal: async (ms) => {
      const out: Event[] = [];
      for (;;) {
        const e = await event(ms);
        out.push(e);
        if (TERMINAL.has(e.type)) return out;
      }
    },
    rest: async () => {
      await exited;
      while (!closed) await Bun.sleep(5);
      const text = lines.map((l) => `${l}\n`).join("") + buffered;
      lines.length = 0;
      buffered = "";
      return text;
    },
    partial: () => buffered,
    unread: () => lines.length,
    stderr: () => err,
    stderrDone,
    exited,
    signalCode: () => proc.signalCode,
    recorded: () => (existsSync(record) ? readFileSync(record, "utf8") : ""),
  };
}

const req = (fields: Record<string, unknown>) => `${JSON.stringify({ protocol_version: 1, ...fields })}\n`;
const hello = (id = "h-1") => req({ request_id: id, command: "hello" });
const run = (workspace: string, fields: Record<string, unknown> = {}) =>
  req({ request_id: "r-1", command: "run", run_id: "run-1", workspace, model: "gpt-5.6", prompt: "hi", ...fields });

async function expectInvalid(host: Started, line: string | Uint8Array, message: string): Promise<Event> {
  host.send(line);
  const e = await host.event();
  expect(e.type).toBe("protocol_error");
  expect(e.request_id).toBe("invalid");
  expect(e.seq).toBe(1);
  expect("run_id" in e).toBe(false);
  expect(String(e.data.error)).toStartWith(message);
  return e;
}

/** Bytes the process has read with read(2) and friends (`rchar` of /proc/<pid>/io). */
function rchar(pid: number): number {
  const match = /^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, "utf8"));
  if (match?.[1] === undefined) throw new Error(`no rchar for ${pid}`);
  return Number(match[1]);
}

/** Alive and not a zombie. */
function processAlive(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
}


/** The pid a `spawn` step reported on stderr. */
async function childPid(host: Started): Promise<number> {
  await eventually(() => /child-pid \d+/.test(host.stderr()));
  const match = /child-pid (\d+)/.exec(host.stderr());
  if (match?.[1] === undefined) throw new Error(`no child-pid on stderr: ${host.stderr()}`);
  return Number(match[1]);
}

const USAGE = { input_tokens: 10, cache_read_tokens: 0, cache_write_tokens: 0, cache_write_1h_tokens: 0, output_tokens: 5, reasoning_tokens: 0, total_tokens: 15 };
const STEP_DATA = { step: 1, turn_usage: USAGE, run_usage: USAGE, session_cost_microdollars: 12, run_cost_microdollars: 12 };

describe("launch", () => {
  test("the wrapper execs bun in place: the spawned pid is bun running main.ts and leads its own process group", async () => {
    const host = start();
    host.send(hello());
    await host.event();
    const stat = readFileSync(`/proc/${host.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    expect(Number(fields[2])).toBe(host.pid); // pgrp
    const cmdline = readFileSync(`/proc/${host.pid}/cmdline`, "utf8").split("\0");
    expect(cmdline).toContain(MAIN);
    host.end();
    expect(await host.exited).toBe(0);
  });

  test("without bun on PATH or OCTET_HOST_DOUBLE_BUN the wrapper exits 127 with a message", async () => {
    const proc = Bun.spawn([DOUBLE], { env: { PATH: "/nonexistent" }, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    expect(await proc.exited).toBe(127);
    expect(await new Response(proc.stderr).text()).toContain("bun not found");
  });

  test("a bunfig.toml preload in the working directory does not reach stdout", async () => {
    const cwd = tempDir("octet-dbl-cwd-");
    writeFileSync(join(cwd, "bunfig.toml"), 'preload = ["./pre.ts"]\n');
    writeFileSync(join(cwd, "pre.ts"), 'console.log("PRELOADED");\n');
    const host = start(undefined, { cwd });
    host.send(hello());
    expect((await host.event()).type).toBe("hello");
    host.end();
    expect(await host.rest()).toBe("");
  });

  test("OCTET_HOST_DOUBLE_BUN selects the bun binary; a scenario file path works like inline JSON", async () => {
    const file = join(tempDir("octet-dbl-scn-"), "scenario.json");
    writeFileSync(file, JSON.stringify({ helloData: { sdk_version: "0.8.1" } }));
    const host = start(file, { env: { PATH: "/usr/bin:/bin", OCTET_HOST_DOUBLE_BUN: process.execPath } });
    host.send(hello());
    expect((await host.event()).data.sdk_version).toBe("0.8.1");
  });
});

describe("hello, models, shutdown", () => {
  test("hello is the seed's reply, byte for byte", async () => {
    const host = start();
    host.send(hello("probe-1"));
    expect(await host.line()).toBe(SEED_HELLO);
    host.send(hello("probe-2"));
    const again = await host.event();
    expect([again.request_id, again.seq]).toEqual(["probe-2", 1]);
  });

  test("models: a catalog sorted by id with every §6.2 key; `offline` is accepted", async () => {
    const host = start();
    host.send(req({ request_id: "m-1", command: "models", offline: true }));
    const e = await host.event();
    expect([e.type, e.request_id, e.seq, "run_id" in e]).toEqual(["models", "m-1", 1, false]);
    const models = e.data.models as Record<string, unknown>[];
    expect(models.length).toBeGreaterThan(1);
    const ids = models.map((m) => m.id as string);
    expect(ids).toEqual([...ids].sort());
    for (const m of models) {
      expect(Object.keys(m).sort()).toEqual(
        ["api_name", "audio", "context_window", "display_name", "id", "input_modalities", "max_output_tokens", "protocol", "provider", "reasoning", "tools", "vision"].sort(),
      );
      expect((m.input_modalities as string[])[0]).toBe("text");
    }
    host.send(req({ request_id: "m-2", command: "models" }));
    expect((await host.event()).type).toBe("models");
  });

  test("models in a deleted working directory: offline:false answers; offline:true fails the catalog build and exits 1 silently", async () => {
    const cwd = tempDir("octet-dbl-cwd-");
    const host = start(undefined, { cwd });
    host.send(hello());
    await host.event();
    rmSync(cwd, { recursive: true });
    host.send(req({ request_id: "m-online", command: "models", offline: false }));
    const online = await host.event();
    expect([online.type, online.request_id]).toEqual(["models", "m-online"]);
    host.send(req({ request_id: "m-default", command: "models" }));
    expect((await host.event()).type).toBe("models");
    host.send(req({ request_id: "m-offline", command: "models", offline: true }));
    expect(await host.rest()).toBe("");
    expect(await host.exited).toBe(1);
    expect(await host.stderrDone).toContain("working directory is unavailable");
  });

  test("catalog entries from the scenario are merged by id: models lists them sorted, with defaults for omitted keys", async () => {
    const host = start({ catalog: [{ id: "a-local" }, { id: "gpt-5.6", display_name: "Custom" }, { id: "z-voice", audio: true, vision: true, reasoning: true }] });
    host.send(req({ request_id: "m", command: "models", offline: true }));
    const models = (await host.event()).data.models as Record<string, unknown>[];
    expect(models.map((m) => m.id)).toEqual(["a-local", "claude-sonnet-4.5", "gpt-5.6", "gpt-audio-1.5", "z-voice"]);
    expect(models[0]).toEqual({
      id: "a-local",
      provider: "openai",
      api_name: "a-local",
      display_name: null,
      protocol: "OpenAiChat",
      context_window: 128000,
      max_output_tokens: 16384,
      tools: true,
      vision: false,
      audio: false,
      input_modalities: ["text"],
      reasoning: false,
    });
    expect(models[2]).toMatchObject({ id: "gpt-5.6", display_name: "Custom", protocol: "OpenAiResponses", vision: true });
    expect(models[4]).toMatchObject({ input_modalities: ["text", "image", "audio"], reasoning: true });
  });

  test("shutdown replies {accepted:true}, exits 0 and never reads the lines after it", async () => {
    const host = start();
    host.send(req({ request_id: "s-1", command: "shutdown" }) + hello("after"));
    expect(await host.rest()).toBe('{"protocol_version":1,"request_id":"s-1","seq":1,"type":"shutdown","data":{"accepted":true}}\n');
    expect(await host.exited).toBe(0);
    expect(host.recorded()).toBe(req({ request_id: "s-1", command: "shutdown" }));
  });

  test("helloData merges into the default (null deletes; features one level deeper)", async () => {
    const host = start({ helloData: { protocol_version: 2, max_concurrent_runs: null, features: { in_band_abort: true, process_group_abort: null } } });
    host.send(hello());
    const data = (await host.event()).data;
    expect(data.protocol_version).toBe(2);
    expect("max_concurrent_runs" in data).toBe(false);
    const features = data.features as Record<string, unknown>;
    expect(features.in_band_abort).toBe(true);
    expect("process_group_abort" in features).toBe(false);
    expect(features.streaming).toBe(true);
  });
});

describe("runs", () => {
  test("a default run: accepted, started, 3 deltas, model_step, settled, final_result with seq 1..8", async () => {
    const host = start();
    host.send(run(host.workspace, { session_id: "chat-1", prompt: "Hello there", allow_file_mutation: false }));
    const events = await host.untilTerminal();
    expect(events.map((e) => e.type)).toEqual(["accepted", "started", "model_delta", "model_delta", "model_delta", "model_step", "settled", "final_result"]);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const e of events) {
      expect([e.protocol_version, e.request_id, e.run_id, e.session_id]).toEqual([1, "r-1", "run-1", "chat-1"]);
    }
    const [accepted, started, , , , step, settled, final] = events as [Event, Event, Event, Event, Event, Event, Event, Event];
    const sessionFile = join(realWorkspace(host), ".octet/sessions/chat-1.jsonl");
    expect(accepted.data.model).toBe("gpt-5.6");
    expect(accepted.data.resolved_model).toBe("gpt-5.6");
    expect(accepted.data.session_file).toBe(sessionFile);
    expect(accepted.data.extensions).toEqual([]);
    const policy = accepted.data.effective_tool_policy as Record<string, { value: unknown; source: string }>;
    expect(Object.keys(policy).sort()).toEqual(
      ["allow_edit", "allow_process", "allow_remote_read", "allow_shell", "allow_write", "bash_timeout_ms", "effect_policy", "max_output_bytes", "shell_path", "workspace_confinement"].sort(),
    );
    for (const member of Object.values(policy)) expect(member.source).toBe("host_request");
    expect(policy.allow_edit?.value).toBe(false);
    expect(policy.effect_policy?.value).toBe("controlled");
    expect(started.data).toEqual({ model: "gpt-5.6" });
    expect(events.slice(2, 5).map((e) => e.data.text).join("")).toBe("You said: Hello there");
    expect(Object.keys(step.data.turn_usage as object).sort()).toEqual(
      ["cache_read_tokens", "cache_write_1h_tokens", "cache_write_tokens", "input_tokens", "output_tokens", "reasoning_tokens", "total_tokens"].sort(),
    );
    expect(typeof step.data.run_cost_microdollars).toBe("number");
    expect(settled.data.status).toBe("completed");
    expect(typeof settled.data.head).toBe("string");
    expect(final.data).toEqual({ status: "completed", output: "You said: Hello there", error: "", filesChanged: [], toolCalls: 0, steps: 1, sessionFile });
    expect(readFileSync(sessionFile, "utf8")).toContain('"text":"Hello there"');
    expect(statSync(sessionFile).mode & 0o777).toBe(0o600);
  });

  test("without session_id the envelope has none and the file is host-<pid>-<nanos>.jsonl; the same session_id appends", async () => {
    const host = start();
    host.send(run(host.workspace));
    const first = await host.untilTerminal();
    for (const e of first) expect("session_id" in e).toBe(false);
    const final = first[first.length - 1] as Event;
    expect(String(final.data.sessionFile)).toMatch(new RegExp(`/host-${host.pid}-\\d+\\.jsonl$`));

    host.send(run(host.workspace, { request_id: "r-2", session_id: "s1", prompt: "one" }));
    const a = (await host.untilTerminal()).at(-1) as Event;
    host.send(run(host.workspace, { request_id: "r-3", session_id: "s1", prompt: "two" }));
    const b = await host.untilTerminal();
    expect((b.at(-1) as Event).data.sessionFile).toBe(a.data.sessionFile);
    const text = readFileSync(String(a.data.sessionFile), "utf8");
    expect(text).toContain('"text":"one"');
    expect(text).toContain('"text":"two"');
    // Resume by path picks the same file.
    host.send(run(host.workspace, { request_id: "r-4", resume_session: a.data.sessionFile, prompt: "three" }));
    expect(((await host.untilTerminal()).at(-1) as Event).data.sessionFile).toBe(a.data.sessionFile);
  });

  test("defaultRun with envPresence answers which variables the double has, by name only", async () => {
    const host = start({ runs: [[{ defaultRun: true, envPresence: ["DOUBLE_TEST_SECRET", "DOUBLE_TEST_ABSENT", "HOME"] }]] }, { env: { DOUBLE_TEST_SECRET: "do-not-print-me" } });
    host.send(run(host.workspace));
    const events = await host.untilTerminal();
    expect((events.at(-1) as Event).data.output).toBe("DOUBLE_TEST_SECRET=set DOUBLE_TEST_ABSENT=unset HOME=set");
    host.end();
    expect(await host.exited).toBe(0);
    expect(JSON.stringify(events) + (await host.stderrDone)).not.toContain("do-not-print-me");
  });

  test("runs[n] scripts the n-th valid run and the last repeats; invalid runs do not count", async () => {
    const host = start({ runs: [[{ defaultRun: true, answer: "first" }], [{ defaultRun: true, answer: "later" }]] });
    host.send(run(host.workspace, { prompt: "x".repeat(524289) }));
    expect((await host.event()).data.status).toBe("error");
    const outputs: unknown[] = [];
    for (const id of ["a", "b", "c"]) {
      host.send(run(host.workspace, { request_id: id }));
      outputs.push(((await host.untilTerminal()).at(-1) as Event).data.output);
    }
    expect(outputs).toEqual(["first", "later", "later"]);
  });

  test("serial: stdin is not read during a run (rchar barely moves while 1 MB of requests waits); they are served after it", async () => {
    // The run's 3 s leave ample time to write 1 MB and sample rchar 400 ms later on a slow machine.
    const host = start({ runs: [[{ accepted: true }, { sleepMs: 3000 }, { defaultRun: true }]] });
    host.send(run(host.workspace));
    expect((await host.event()).type).toBe("accepted");
    // Ten hello requests of 100,000 bytes each, padded with JSON whitespace; not awaited (the pipe holds 64 KiB).
    const queued = Array.from({ length: 10 }, (_, i) => {
      const open = `{"protocol_version":1,"request_id":"q-${i}","command":"hello"`;
      return `${open}${" ".repeat(100_000 - open.length - 2)}}\n`;
    }).join("");
    const before = rchar(host.pid);
    host.send(queued);
    await Bun.sleep(400);
    const after = rchar(host.pid);
    // Still inside the run's sleep: nothing after accepted has been written.
    expect(host.unread()).toBe(0);
    expect(after - before).toBeLessThan(256 * 1024);
    expect((await host.untilTerminal()).at(-1)?.type).toBe("final_result");
    for (let i = 0; i < 10; i++) {
      const reply = await host.event();
      expect([reply.type, reply.request_id]).toEqual(["hello", `q-${i}`]);
    }
    expect(rchar(host.pid) - before).toBeGreaterThanOrEqual(1_000_000);
  });

  test("closing stdin during a run does not stop it: the run completes, then exit 0", async () => {
    const host = start({ runs: [[{ sleepMs: 200 }, { defaultRun: true }]] });
    host.send(run(host.workspace));
    host.end();
    expect((await host.untilTerminal()).at(-1)?.type).toBe("final_result");
    expect(await host.exited).toBe(0);
  });

  test("media is checked after accepted: accepted then final_result error, sessionFile \"\", no started/settled", async () => {
    const host = start();
    const missing = join(host.workspace, "missing.png");
    host.send(run(host.workspace, { media: [{ type: "image", path: missing }] }));
    const events = await host.untilTerminal();
    expect(events.map((e) => [e.type, e.seq])).toEqual([["accepted", 1], ["final_result", 2]]);
    const final = events[1] as Event;
    expect(final.data).toMatchObject({ status: "error", output: "", sessionFile: "", steps: 0, toolCalls: 0, filesChanged: [] });
    expect(String(final.data.error)).toStartWith(`resolving image ${missing}: No such file or directory`);

    const outside = join(tempDir("octet-dbl-out-"), "pic.png");
    writeFileSync(outside, "png");
    host.send(run(host.workspace, { request_id: "r-2", image_paths: [outside] }));
    const second = await host.untilTerminal();
    expect(second.map((e) => e.type)).toEqual(["accepted", "final_result"]);
    expect((second[1] as Event).data.error).toBe(`image ${realpathSync(outside)} is outside the configured workspace`);

    const bmp = join(host.workspace, "pic.bmp");
    writeFileSync(bmp, "bmp");
    host.send(run(host.workspace, { request_id: "r-3", media: [{ type: "image", path: bmp }] }));
    expect(((await host.untilTerminal()).at(-1) as Event).data.error).toBe(`unsupported image extension for ${realpathSync(bmp)}`);

    const png = join(host.workspace, "ok.png");
    writeFileSync(png, "png");
    host.send(run(host.workspace, { request_id: "r-4", media: [{ type: "image", path: png }] }));
    expect(((await host.untilTerminal()).at(-1) as Event).data.status).toBe("completed");
  });

  test("media types after accepted: image capability before extension; audio format before capability, named as the host does", async () => {
    const host = start({ catalog: [{ id: "text-only" }] });
    const file = (name: string) => {
      writeFileSync(join(host.workspace, name), "bytes");
      return realpathSync(join(host.workspace, name));
    };
    const failure = async (fields: Record<string, unknown>) => {
      host.send(run(host.workspace, fields));
      const events = await host.untilTerminal();
      expect(events.map((e) => e.type)).toEqual(["accepted", "final_result"]);
      return (events[1] as Event).data.error;
    };
    const bmp = file("pic.bmp");
    expect(await failure({ model: "text-only", media: [{ type: "image", path: bmp }] })).toBe("model text-only does not support native image input");
    const wav = file("a.wav");
    expect(await failure({ media: [{ type: "audio", path: wav }] })).toBe(
      "model gpt-5.6 does not support native WAV audio input through OpenAiResponses; native input accepts only WAV or MP3 on OpenAI Chat Completions",
    );
    const ogg = file("a.ogg");
    expect(await failure({ model: "gpt-audio-1.5", media: [{ type: "audio", path: ogg }] })).toBe(
      "model gpt-audio-1.5 does not support native Opus audio input through OpenAiChat; native input accepts only WAV or MP3 on OpenAI Chat Completions",
    );
    const txt = file("a.txt");
    expect(await failure({ model: "gpt-5.6", media: [{ type: "audio", path: txt }] })).toBe(`native audio attachment ${txt} must use WAV or MP3`);
    host.send(run(host.workspace, { model: "gpt-audio-1.5", media: [{ type: "image", path: file("x.png") }, { type: "audio", path: wav }] }));
    expect((await host.untilTerminal()).at(-1)?.data.status).toBe("completed");
  });

  test("a model id outside the catalog fails at seq 1 with the catalog resolver's text; scenario catalog models run", async () => {
    const host = start({ catalog: [{ id: "local/llama" }] });
    host.send(run(host.workspace, { model: "nope-1" }));
    const e = await host.event();
    expect([e.type, e.seq, e.run_id]).toEqual(["final_result", 1, "run-1"]);
    expect(e.data).toEqual({ status: "error", output: "", error: 'Unknown model: ModelId("nope-1")', filesChanged: [], toolCalls: 0, steps: 0, sessionFile: "" });
    // The configuration checks come first.
    host.send(run(host.workspace, { model: "nope-1", reasoning: "extreme" }));
    expect((await host.event()).data.error).toBe('invalid reasoning setting "extreme"');
    host.send(run(host.workspace, { model: "local/llama" }));
    const events = await host.untilTerminal();
    expect([events[0]?.data.resolved_model, events.at(-1)?.data.status]).toEqual(["local/llama", "completed"]);
  });

  test("final_result.output is clipped at 256 KiB on a character boundary with the omitted-bytes marker", async () => {
    const answer = `x${"é".repeat(140_000)}`; // 280,001 bytes; byte 262,144 is inside an é
    const host = start({ runs: [[{ defaultRun: true, answer }]] });
    host.send(run(host.workspace));
    const events = await host.untilTerminal();
    const output = String(events.at(-1)?.data.output);
    expect(output).toBe(`x${"é".repeat(131_071)}\n[… 17858 bytes omitted]`);
    expect(events.filter((e) => e.type === "model_delta").map((e) => e.data.text).join("")).toBe(answer);
  });

  test("model_delta texts stay within 64 KiB each and join to the whole answer", async () => {
    const answer = "y".repeat(200_000);
    const host = start({ runs: [[{ defaultRun: true, answer }]] });
    host.send(run(host.workspace));
    const deltas = (await host.untilTerminal()).filter((e) => e.type === "model_delta").map((e) => String(e.data.text));
    expect(deltas.length).toBeGreaterThanOrEqual(4);
    for (const text of deltas) expect(Buffer.byteLength(text)).toBeLessThanOrEqual(65_536);
    expect(deltas.join("")).toBe(answer);
  });

  test("history seeds only a new session file", async () => {
    const host = start();
    host.send(run(host.workspace, { session_id: "seeded", history: [{ role: "user", text: "FIRST-SEED" }, { role: "assistant", text: "FIRST-REPLY" }] }));
    const file = String((await host.untilTerminal()).at(-1)?.data.sessionFile);
    host.send(run(host.workspace, { request_id: "r-2", session_id: "seeded", history: [{ role: "user", text: "SECOND-SEED" }] }));
    expect((await host.untilTerminal()).at(-1)?.data.sessionFile).toBe(file);
    const text = readFileSync(file, "utf8");
    expect(text).toContain('"text":"FIRST-SEED"');
    expect(text).toContain('"text":"FIRST-REPLY"');
    expect(text).not.toContain("SECOND-SEED");
  });

  test("a session_id whose file is a symbolic link is refused at seq 1 and nothing is written through it", async () => {
    const host = start();
    const sessions = join(host.workspace, ".octet/sessions");
    mkdirSync(sessions, { recursive: true });
    const target = join(host.workspace, "target.txt");
    writeFileSync(target, "untouched");
    symlinkSync(target, join(sessions, "linked.jsonl"));
    host.send(run(host.workspace, { session_id: "linked" }));
    const e = await host.event();
    expect([e.type, e.seq, e.data.error, e.data.sessionFile]).toEqual(["final_result", 1, "session must not be a symbolic link", ""]);
    expect(readFileSync(target, "utf8")).toBe("untouched");
    mkdirSync(join(sessions, "dir.jsonl"));
    host.send(run(host.workspace, { session_id: "dir" }));
    expect((await host.event()).data.error).toBe("session must be a regular file");
  });

  test("session_dir: '.' components are dropped like Rust's Path::components; '..' is refused", async () => {
    const host = start();
    host.send(run(host.workspace, { session_id: "dots", session_dir: "./state/./inner" }));
    const final = (await host.untilTerminal()).at(-1) as Event;
    expect(final.data.status).toBe("completed");
    expect(final.data.sessionFile).toBe(join(realWorkspace(host), "state/inner/dots.jsonl"));
    host.send(run(host.workspace, { request_id: "r-2", session_dir: `${host.workspace}/./state/../x` }));
    expect((await host.event()).data.error).toBe("session directory must not contain '.' or '..' components");
  });

  test("history over 2,097,152 bytes is refused (unreachable over a 1 MiB frame, so checked on the validator)", () => {
    const ws = tempDir("octet-dbl-ws-");
    const decoded = decodeRequestLine(Buffer.from(run(ws).trimEnd()));
    if (decoded.kind !== "request" || decoded.request.command !== "run") throw new Error("the run line did not decode");
    const request = decoded.request;
    const history = (bytes: number) => [{ role: "user" as const, text: "h".repeat(bytes - 1) }, { role: "assistant" as const, text: "a" }];
    const over = validateRun({ ...request, history: history(2_097_153) }, buildCatalog());
    expect(over).toEqual({ ok: false, error: "history exceeds the 2097152-byte limit" });
    expect(validateRun({ ...request, history: history(2_097_152) }, buildCatalog()).ok).toBe(true);
  });

  test("inline route: resolved_model is host-inline/<24 hex>, model stays as requested", async () => {
    const host = start();
    host.send(run(host.workspace, { model: "local-model", base_url: "http://127.0.0.1:1234/v1", provider: "local", api_key: "secret", provider_mode: "openai-compatible" }));
    const accepted = (await host.untilTerminal())[0] as Event;
    expect(accepted.data.model).toBe("local-model");
    expect(String(accepted.data.resolved_model)).toMatch(/^host-inline\/[0-9a-f]{24}$/);
    expect(JSON.stringify(accepted)).not.toContain("secret");
  });

  test("inline route id: SHA-256 of the parsed URL's serialisation; '@' is allowed in the path", async () => {
    const host = start();
    const digest = (url: string) =>
      `host-inline/${createHash("sha256").update(`${url}\0OpenAiChat\0local\0local-model`).digest("hex").slice(0, 24)}`;
    host.send(run(host.workspace, { model: "local-model", provider: "local", base_url: " HTTP://Example.COM:80/v1/@team " }));
    const events = await host.untilTerminal();
    expect(events[0]?.data.resolved_model).toBe(digest("http://example.com/v1/@team/"));
    expect(events.at(-1)?.data.status).toBe("completed");
  });
});

function realWorkspace(host: Started): string {
  return Bun.spawnSync(["realpath", host.workspace]).stdout.toString().trim();
}

describe("§5 decoding order and messages", () => {
  test("step 3: syntax, duplicates at any depth, non-objects", async () => {
    const host = start();
    await expectInvalid(host, "{not json}\n", "invalid request: key must be a string");
    await expectInvalid(host, '{"protocol_version":1,"request_id":"a","command":"hello"} x\n', "invalid request: trailing characters");
    await expectInvalid(host, '{"protocol_version":1,"request_id":"a","request_id":"b","command":"hello"}\n', 'invalid request: duplicate JSON field "request_id"');
    const ws = host.workspace;
    await expectInvalid(
      host,
      `{"protocol_version":1,"request_id":"r","command":"run","run_id":"x","workspace":${JSON.stringify(ws)},"model":"m","prompt":"p","custom_headers":{"x-test":"a","x-test":"b"}}\n`,
      'invalid request: duplicate JSON field "x-test"',
    );
    await expectInvalid(host, "[1,2]\n", "invalid request: request must be a JSON object");
    await expectInvalid(host, "null\n", "invalid request: request must be a JSON object");
    await expectInvalid(host, '{"protocol_version":NaN,"request_id":"a","command":"hello"}\n', "invalid request: expected value");
  });

  test("step 3: strict UTF-8 — invalid bytes and a leading BOM are parse errors, as serde_json reports them", async () => {
    const host = start();
    const head = `{"protocol_version":1,"request_id":"u8","command":"run","run_id":"r","workspace":${JSON.stringify(host.workspace)},"model":"gpt-5.6","prompt":"a`;
    const line = Buffer.concat([Buffer.from(head), Buffer.from([0xff]), Buffer.from('b"}\n')]);
    const closingQuote = Buffer.byteLength(head) + 2;
    await expectInvalid(host, line, `invalid request: invalid unicode code point at line 1 column ${closingQuote + 1}`);
    await expectInvalid(host, Buffer.from([0x7b, 0xc3, 0x28, 0x7d, 0x0a]), "invalid request: key must be a string at line 1 column 2");
    await expectInvalid(host, Buffer.from([0xff, 0x0a]), "invalid request: expected value at line 1 column 1");
    await expectInvalid(host, `\uFEFF${hello("bom")}`, "invalid request: expected value at line 1 column 1");
    host.send(hello("after"));
    expect((await host.event()).request_id).toBe("after");
  });

  test("step 4: unknown fields per command, before any type error", async () => {
    const host = start();
    await expectInvalid(host, req({ request_id: "h", command: "hello", offline: true }), 'invalid request: unknown request field "offline"');
    await expectInvalid(host, req({ request_id: "s", command: "shutdown", extra: 1 }), 'invalid request: unknown request field "extra"');
    await expectInvalid(host, req({ request_id: "m", command: "models", offline: true, verbose: true }), 'invalid request: unknown request field "verbose"');
    await expectInvalid(
      host,
      req({ request_id: "r", command: "run", run_id: "x", workspace: host.workspace, model: "m", prompt: "p", allow_file_mutations: false }),
      'invalid request: unknown request field "allow_file_mutations"',
    );
    // The unknown field wins over a type error and over a bad request_id.
    await expectInvalid(host, JSON.stringify({ protocol_version: "1", request_id: "a/b", command: "hello", bogus: 1 }) + "\n", 'invalid request: unknown request field "bogus"');
  });

  test("step 5: types, required fields, unknown command, enum values, nulls", async () => {
    const host = start();
    const ws = host.workspace;
    const base = { request_id: "r", command: "run", run_id: "x", workspace: ws, model: "m", prompt: "p" };
    await expectInvalid(host, '{"protocol_version":1.0,"request_id":"a","command":"hello"}\n', "invalid request: invalid type: floating point `1.0`, expected u16");
    await expectInvalid(host, req({ protocol_version: "1", request_id: "a", command: "hello" }), 'invalid request: invalid type: string "1", expected u16');
    await expectInvalid(host, req({ protocol_version: -1, request_id: "a", command: "hello" }), "invalid request: invalid value: integer `-1`, expected u16");
    await expectInvalid(host, req({ protocol_version: 70000, request_id: "a", command: "hello" }), "invalid request: invalid value: integer `70000`, expected u16");
    await expectInvalid(host, req({ request_id: "a", command: "abort", foo: 1 }), "invalid request: unknown variant `abort`");
    await expectInvalid(host, req({ request_id: "a" }), "invalid request: missing field `command`");
    await expectInvalid(host, `${JSON.stringify({ request_id: "a", command: "hello" })}\n`, "invalid request: missing field `protocol_version`");
    const { prompt: _omit, ...noPrompt } = base;
    await expectInvalid(host, req(noPrompt), "invalid request: missing field `prompt`");
    await expectInvalid(host, req({ ...base, input_modalities: ["text"] }), "invalid request: unknown variant `text`, expected `image` or `audio`");
    await expectInvalid(host, req({ ...base, media: [{ type: "video", path: "/x" }] }), "invalid request: unknown variant `video`");
    await expectInvalid(host, req({ ...base, media: [{ type: "image", path: "/x", mime: "image/png" }] }), "invalid request: unknown field `mime`");
    await expectInvalid(host, req({ ...base, history: [{ role: "system", text: "x" }] }), "invalid request: unknown variant `system`, expected `user` or `assistant`");
    await expectInvalid(host, req({ ...base, history: [{ role: "user", text: "x", at: 1 }] }), "invalid request: unknown field `at`");
    await expectInvalid(host, req({ ...base, allow_file_mutation: null }), "invalid request: invalid type: null, expected a boolean");
    await expectInvalid(host, req({ ...base, media: null }), "invalid request: invalid type: null, expected a sequence");
    await expectInvalid(host, req({ ...base, custom_headers: null }), "invalid request: invalid type: null, expected a map");
    await expectInvalid(host, req({ ...base, max_turns: 1.5 }), "invalid request: invalid type: floating point `1.5`, expected u64");
    await expectInvalid(host, req({ ...base, prompt: null }), "invalid request: invalid type: null, expected a string");
    // A type error wins over a bad request_id.
    await expectInvalid(host, req({ request_id: "a/b", command: "models", offline: "yes" }), 'invalid request: invalid type: string "yes", expected a boolean');
  });

  test("null means absent for optional scalars: session_id/tools/reasoning null run normally", async () => {
    const host = start();
    host.send(run(host.workspace, { session_id: null, tools: null, reasoning: null, system_prompt: null }));
    const events = await host.untilTerminal();
    expect(events.at(-1)?.data.status).toBe("completed");
    for (const e of events) expect("session_id" in e).toBe(false);
    expect((events[0] as Event).data.registered_tools).toEqual(["read", "bash", "edit", "write", "grep", "find", "ls"]);
  });

  test("step 6: request_id rule, reported under request_id invalid, before the version check", async () => {
    const host = start();
    await expectInvalid(host, req({ request_id: "a/b", command: "hello" }), "request_id is invalid");
    await expectInvalid(host, req({ request_id: "", command: "hello" }), "request_id is invalid");
    await expectInvalid(host, req({ request_id: "x".repeat(129), command: "hello" }), "request_id is invalid");
    await expectInvalid(host, req({ protocol_version: 2, request_id: "a b", command: "hello" }), "request_id is invalid");
    host.send(hello("A-z_0.9:ok"));
    expect((await host.event()).request_id).toBe("A-z_0.9:ok");
    host.send(hello("x".repeat(128)));
    expect((await host.event()).type).toBe("hello");
  });

  test("step 7: protocol_version other than 1 echoes the request_id", async () => {
    const host = start();
    host.send(req({ protocol_version: 2, request_id: "v-2", command: "hello" }));
    const e = await host.event();
    expect(e).toEqual({ protocol_version: 1, request_id: "v-2", seq: 1, type: "protocol_error", data: { error: "unsupported protocol version", received: 2, supported: [1] } });
  });

  test("step 8: run_id / session_id rule echoes the request_id without run_id; ':' is allowed (seed)", async () => {
    const host = start();
    host.send(run(host.workspace, { run_id: "run/1" }));
    expect(await host.event()).toEqual({ protocol_version: 1, request_id: "r-1", seq: 1, type: "protocol_error", data: { error: "run_id or session_id is invalid" } });
    host.send(run(host.workspace, { session_id: "" }));
    expect((await host.event()).data.error).toBe("run_id or session_id is invalid");
    host.send(run(host.workspace, { session_id: "x".repeat(129) }));
    expect((await host.event()).data.error).toBe("run_id or session_id is invalid");
    host.send(run(host.workspace, { run_id: "run:1", session_id: "session:stream" }));
    const events = await host.untilTerminal();
    expect(events.at(-1)?.data.status).toBe("completed");
    expect([events[0]?.run_id, events[0]?.session_id]).toEqual(["run:1", "session:stream"]);
  });
});

describe("semantic validation: final_result error at seq 1 with run_id (and session_id)", () => {
  const images = (ws: string, n: number) => Array.from({ length: n }, (_, i) => ({ type: "image", path: `${ws}/i${i}.png` }));
  const audio = (ws: string, n: number) => Array.from({ length: n }, (_, i) => ({ type: "audio", path: `${ws}/a${i}.wav` }));
  const inline = { base_url: "http://127.0.0.1:1234/v1" };
  const cases: [string, (ws: string) => Record<string, unknown>, string | ((ws: string) => string)][] = [
    ["prompt size", () => ({ prompt: "é".repeat(262145) }), "prompt exceeds the 524288-byte limit"],
    ["display text control char", () => ({ prompt_display_text: "a\u0007b" }), "prompt_display_text is malformed or exceeds the 262144-byte limit"],
    ["model id whitespace", () => ({ model: " m" }), "model id is empty, malformed, or too long"],
    ["provider id", () => ({ provider: "a/b" }), "provider id is malformed or too long"],
    ["api_key whitespace", () => ({ api_key: " k" }), "api_key is malformed or exceeds the 65536-byte limit"],
    ["api_key C0 control", () => ({ api_key: "ab\u0007cd" }), "api_key is malformed or exceeds the 65536-byte limit"],
    ["api_key DEL", () => ({ api_key: "ab\u007fcd" }), "api_key is malformed or exceeds the 65536-byte limit"],
    ["api_key C1 control", () => ({ api_key: "ab\u0085cd" }), "api_key is malformed or exceeds the 65536-byte limit"],
    ["base_url query", () => ({ base_url: "http://h/v1?x=1" }), "inline model base_url must be an absolute HTTP(S) URL without userinfo, query, or fragment"],
    ["base_url empty query", () => ({ base_url: "http://h/v1?" }), "inline model base_url must be an absolute HTTP(S) URL without userinfo, query, or fragment"],
    ["base_url userinfo", () => ({ base_url: "http://user@h/v1" }), "inline model base_url must be an absolute HTTP(S) URL without userinfo, query, or fragment"],
    ["base_url garbage", () => ({ base_url: "not a url" }), "inline model base_url is invalid"],
    [
      "provider_mode (quoted as normalised)",
      () => ({ base_url: "http://h/v1", provider_mode: " Bogus_Mode " }),
      'unsupported provider_mode "bogus-mode"; use openai-compatible, openai-responses, or anthropic-messages',
    ],
    [
      "inline audio modality off OpenAI Chat",
      () => ({ ...inline, provider_mode: "openai-responses", input_modalities: ["audio"] }),
      "native audio input is unsupported through OpenAiResponses; use an OpenAI Chat Completions route with an audio-capable model (WAV or MP3 only)",
    ],
    [
      "inline audio attachment off OpenAI Chat",
      (ws) => ({ ...inline, provider_mode: "anthropic-messages", media: audio(ws, 1) }),
      "native audio input is unsupported through AnthropicMessages; use an OpenAI Chat Completions route with an audio-capable model (WAV or MP3 only)",
    ],
    ["inline audio attachment without the audio modality", (ws) => ({ ...inline, media: audio(ws, 1) }), 'inline native audio attachments require input_modalities to include "audio"'],
    [
      "inline FLAC attachment",
      (ws) => ({ ...inline, input_modalities: ["audio"], media: [{ type: "audio", path: `${ws}/a.flac` }] }),
      (ws) => `native audio attachment ${ws}/a.flac uses FLAC; OpenAI Chat Completions accepts only WAV or MP3`,
    ],
    [
      "inline attachment of an unrecognised audio extension",
      (ws) => ({ ...inline, input_modalities: ["audio"], media: [{ type: "audio", path: `${ws}/a.txt` }] }),
      (ws) => `native audio attachment ${ws}/a.txt must use WAV or MP3`,
    ],
    ["forbidden header", () => ({ base_url: "http://h", custom_headers: { Host: "x" } }), "custom header host is not allowed"],
    ["header count", () => ({ base_url: "http://h", custom_headers: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`x-${i}`, "v"])) }), "custom_headers exceeds the 64-header limit"],
    ["header name", () => ({ base_url: "http://h", custom_headers: { "x ok": "v" } }), 'invalid custom header name "x ok"'],
    ["header value control char", () => ({ base_url: "http://h", custom_headers: { "X-Tenant": "a\u0001b" } }), "invalid value for custom header x-tenant"],
    ["header value DEL", () => ({ base_url: "http://h", custom_headers: { "x-t": "a\u007fb" } }), "invalid value for custom header x-t"],
    ["history count", () => ({ history: Array.from({ length: 257 }, () => ({ role: "user", text: "x" })) }), "history exceeds the 256-message limit"],
    ["media and image_paths", (ws) => ({ media: [{ type: "image", path: `${ws}/a.png` }], image_paths: [`${ws}/b.png`] }), "media and legacy image_paths cannot be combined"],
    ["media items", (ws) => ({ media: [...images(ws, 9), ...audio(ws, 4)] }), "media exceeds the 12-item limit"],
    ["media images", (ws) => ({ media: [...images(ws, 9), ...audio(ws, 1)] }), "media exceeds the 8-image limit"],
    ["legacy image_paths count as images", (ws) => ({ image_paths: images(ws, 9).map((m) => m.path) }), "media exceeds the 8-image limit"],
    ["audio count", (ws) => ({ media: audio(ws, 5) }), "media exceeds the 4-audio limit"],
    ["modalities", () => ({ input_modalities: ["image", "image"] }), "input_modalities contains duplicate or excess values"],
    ["system prompt", () => ({ system_prompt: "s".repeat(524289) }), "system prompt exceeds the 524288-byte limit"],
    ["workspace", (ws) => ({ workspace: `${ws}/nope` }), (ws) => `workspace ${ws}/nope is unavailable`],
    ["working_dir", () => ({ working_dir: tmpdir() }), "working directory must stay inside the workspace"],
    ["session_dir dots", () => ({ session_dir: "a/../b" }), "session directory must not contain '.' or '..' components"],
    ["session_dir outside", () => ({ session_dir: join(tmpdir(), "elsewhere") }), "session directory must stay inside the workspace unless allow_external_paths is enabled"],
    ["tool name", () => ({ tools: ["read", "teleport"] }), 'invalid tool name "teleport"'],
    ["reasoning", () => ({ reasoning: "extreme" }), 'invalid reasoning setting "extreme"'],
    ["unknown model", () => ({ model: "gpt-9" }), 'Unknown model: ModelId("gpt-9")'],
    ["resume missing", (ws) => ({ resume_session: `${ws}/none.jsonl` }), (ws) => `resume session ${ws}/none.jsonl is unavailable`],
  ];
  for (const [name, fields, message] of cases) {
    test(name, async () => {
      const host = start();
      const ws = host.workspace;
      host.send(run(ws, { session_id: "s-1", ...fields(ws) }));
      const e = await host.event();
      expect([e.type, e.seq, e.request_id, e.run_id, e.session_id]).toEqual(["final_result", 1, "r-1", "run-1", "s-1"]);
      expect(e.data).toEqual({ status: "error", output: "", error: typeof message === "string" ? message : message(ws), filesChanged: [], toolCalls: 0, steps: 0, sessionFile: "" });
      // The host stays usable.
      host.send(hello());
      expect((await host.event()).type).toBe("hello");
    });
  }

  test("the first failure in §6.3 order wins (prompt size before a bad model id and a missing workspace)", async () => {
    const host = start();
    host.send(run("/does/not/exist", { model: "", prompt: "x".repeat(524289) }));
    expect((await host.event()).data.error).toBe("prompt exceeds the 524288-byte limit");
  });

  test("resume_session: not a symbolic link, then inside the session directory, then a regular file (in that order)", async () => {
    const host = start();
    const sessions = join(host.workspace, ".octet/sessions");
    mkdirSync(sessions, { recursive: true });
    writeFileSync(join(sessions, "real.jsonl"), "");
    symlinkSync(join(sessions, "real.jsonl"), join(sessions, "link.jsonl"));
    host.send(run(host.workspace, { resume_session: join(sessions, "link.jsonl") }));
    expect((await host.event()).data.error).toBe("resume session must not be a symbolic link");
    writeFileSync(join(host.workspace, "stray.jsonl"), "");
    host.send(run(host.workspace, { resume_session: join(host.workspace, "stray.jsonl") }));
    expect((await host.event()).data.error).toBe("resume session must stay inside the configured session directory");
    // A directory outside the session directory fails containment before the regular-file check.
    host.send(run(host.workspace, { resume_session: host.workspace }));
    expect((await host.event()).data.error).toBe("resume session must stay inside the configured session directory");
    mkdirSync(join(sessions, "sub.jsonl"));
    host.send(run(host.workspace, { resume_session: join(sessions, "sub.jsonl") }));
    expect((await host.event()).data.error).toBe("resume session must be a regular file");
  });
});

describe("framing", () => {
  test("CRLF is accepted; a blank line is ignored; a whitespace-only line is a parse error", async () => {
    const host = start();
    host.send("\n\r\n");
    host.send(hello("crlf").replace("\n", "\r\n"));
    const e = await host.event();
    expect([e.type, e.request_id, e.seq]).toEqual(["hello", "crlf", 1]);
    await expectInvalid(host, "   \n", "invalid request: EOF while parsing a value");
    expect(host.recorded()).toBe(`\n\r\n${hello("crlf").replace("\n", "\r\n")}   \n`);
  });

  test("a line of 1,048,577 bytes with its LF gets one protocol_error and the next line is served", async () => {
    const host = start();
    const head = '{"protocol_version":1,"request_id":"big","command":"hello","pad":"';
    const line = `${head}${"x".repeat(LIMIT + 1 - head.length - 3)}"}\n`;
    expect(Buffer.byteLength(line)).toBe(LIMIT + 1);
    host.send(line + hello("next"));
    expect(await host.event()).toEqual({
      protocol_version: 1,
      request_id: "invalid",
      seq: 1,
      type: "protocol_error",
      data: { error: "request exceeded the protocol frame limit", max_bytes: LIMIT },
    });
    const next = await host.event();
    expect([next.type, next.request_id]).toEqual(["hello", "next"]);
  });

  test("a line of exactly 1,048,576 bytes with its LF is decoded normally", async () => {
    const host = start();
    const open = '{"protocol_version":1,"request_id":"edge","command":"hello"';
    const line = `${open}${" ".repeat(LIMIT - open.length - 2)}}\n`;
    expect(Buffer.byteLength(line)).toBe(LIMIT);
    host.send(line);
    const e = await host.event();
    expect([e.type, e.request_id]).toEqual(["hello", "edge"]);
  });

  test("bytes are counted, not characters: 1,048,577 bytes of multi-byte text is oversized", async () => {
    const host = start();
    const head = '{"protocol_version":1,"request_id":"u","command":"hello","pad":"';
    const fill = LIMIT + 1 - head.length - 3; // bytes to fill
    const line = `${head}${"é".repeat(Math.floor(fill / 2))}${fill % 2 ? "x" : ""}"}\n`;
    expect(Buffer.byteLength(line)).toBe(LIMIT + 1);
    host.send(line);
    expect((await host.event()).data.error).toBe("request exceeded the protocol frame limit");
  });

  test("a partial line at EOF: protocol_error incomplete frame, then exit 0", async () => {
    const host = start();
    host.send('{"protocol_version":1,"request_id":"cut"');
    host.end();
    expect(await host.rest()).toBe('{"protocol_version":1,"request_id":"invalid","seq":1,"type":"protocol_error","data":{"error":"incomplete protocol frame at EOF"}}\n');
    expect(await host.exited).toBe(0);
  });

  test("EOF while discarding an oversized line reports only the incomplete frame, then exit 0", async () => {
    const host = start();
    host.send("x".repeat(LIMIT + 100));
    host.end();
    expect(await host.rest()).toBe('{"protocol_version":1,"request_id":"invalid","seq":1,"type":"protocol_error","data":{"error":"incomplete protocol frame at EOF"}}\n');
    expect(await host.exited).toBe(0);
  });

  test("clean EOF while idle: no output, exit 0", async () => {
    const host = start();
    host.end();
    expect(await host.rest()).toBe("");
    expect(await host.exited).toBe(0);
  });

  test("the record file gets each line read, verbatim plus LF, before it is processed", async () => {
    const host = start({ runs: [[{ stall: true }]] });
    const line = run(host.workspace);
    host.send(line);
    await eventually(() => host.recorded() !== "");
    expect(host.recorded()).toBe(line);
  });
});

describe("signals", () => {
  for (const [signal, code] of [["SIGHUP", 129], ["SIGINT", 130], ["SIGQUIT", 131], ["SIGTERM", 143]] as const) {
    test(`${signal} mid-run: exit ${code}, no settled and no final_result`, async () => {
      const host = start({ runs: [[{ accepted: true }, { event: "started", data: { model: "gpt-5.6" } }, { stall: true }]] });
      host.send(run(host.workspace));
      expect((await host.event()).type).toBe("accepted");
      expect((await host.event()).type).toBe("started");
      process.kill(-host.pid, signal);
      expect(await host.exited).toBe(code);
      expect(await host.rest()).toBe("");
    });
  }

  test("ignoreSigterm: SIGTERM is ignored, SIGKILL ends it", async () => {
    const host = start({ ignoreSigterm: true, runs: [[{ accepted: true }, { stall: true }]] });
    host.send(run(host.workspace));
    expect((await host.event()).type).toBe("accepted");
    process.kill(host.pid, "SIGTERM");
    const early = await Promise.race([host.exited.then(() => "exited"), Bun.sleep(400).then(() => "alive")]);
    expect(early).toBe("alive");
    process.kill(-host.pid, "SIGKILL");
    await host.exited;
    expect(host.signalCode()).toBe("SIGKILL");
  });

  test("spawned children are stopped when the double exits at EOF or after shutdown, and survive an exit step (a crash)", async () => {
    const script: Step[] = [{ spawn: ["sleep", "600"] }, { defaultRun: true }];
    const eof = start({ runs: [script] });
    eof.send(run(eof.workspace));
    await eof.untilTerminal();
    const eofChild = await childPid(eof);
    eof.end();
    expect(await eof.exited).toBe(0);
    expect(await eventually(() => !processAlive(eofChild))).toBe(true);

    const shutdown = start({ runs: [script] });
    shutdown.send(run(shutdown.workspace));
    await shutdown.untilTerminal();
    const shutdownChild = await childPid(shutdown);
    shutdown.send(req({ request_id: "s", command: "shutdown" }));
    expect((await shutdown.event()).type).toBe("shutdown");
    expect(await shutdown.exited).toBe(0);
    expect(await eventually(() => !processAlive(shutdownChild))).toBe(true);

    const crash = start({ runs: [[{ spawn: ["sleep", "600"] }, { exit: 101 }]] });
    crash.send(run(crash.workspace));
    expect(await crash.exited).toBe(101);
    const crashChild = await childPid(crash);
    try {
      await Bun.sleep(200);
      expect(processAlive(crashChild)).toBe(true);
    } finally {
      process.kill(crashChild, "SIGKILL");
    }
  });

  test("a spawned child shares the double's process group and is killed when the double is signalled", async () => {
    const host = start({ runs: [[{ spawn: ["sleep", "600"] }, { accepted: true }, { stall: true }]] });
    host.send(run(host.workspace));
    expect((await host.event()).type).toBe("accepted");
    const child = await childPid(host); // stderr is its own pipe: it may trail the accepted event
    const stat = readFileSync(`/proc/${child}/stat`, "utf8");
    expect(Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2])).toBe(host.pid);
    process.kill(host.pid, "SIGTERM"); // the double only, not its group
    expect(await host.exited).toBe(143);
    expect(await eventually(() => !existsSync(`/proc/${child}`) || readFileSync(`/proc/${child}/stat`, "utf8").includes(") Z "))).toBe(true);
  });
});

describe("scripted steps and faults", () => {
  test("event envelope patch: null removes a field, a seq override moves the counter, extra keys are added", async () => {
    const host = start({
      runs: [
        [
          { event: "accepted", data: { model: "m" }, envelope: { session_id: null, extra: "x" } },
          { event: "started", data: { model: "m" }, envelope: { seq: 5 } },
          { event: "model_delta", data: { channel: "text", text: "a" }, envelope: { run_id: "other" } },
          { event: "final_result", data: { status: "completed" }, envelope: { protocol_version: "1" } },
        ],
      ],
    });
    host.send(run(host.workspace, { session_id: "s" }));
    const [a, b, c, d] = [await host.event(), await host.event(), await host.event(), await host.event()];
    expect("session_id" in a).toBe(false);
    expect(a.extra).toBe("x");
    expect([a.seq, b.seq, c.seq, d.seq]).toEqual([1, 5, 6, 7]);
    expect(c.run_id).toBe("other");
    expect(d.protocol_version).toBe("1");
  });

  test("splitAt writes one line in pieces (a 4-byte character split) that join to the same bytes", async () => {
    const host = start({ hello: [{ event: "hello", data: { note: "a😀b" }, splitAt: [10, 70, 71] }] });
    host.send(hello());
    const e = await host.event();
    expect(e.data.note).toBe("a😀b");
  });

  test("raw, paddedEvent and preamble write exactly what they say", async () => {
    const host = start({
      preamble: [{ raw: "banner\n" }],
      runs: [[{ raw: '{"half":' }, { raw: "1}\n" }, { paddedEvent: "model_delta", bytes: 1000 }, { paddedEvent: "settled", bytes: 300 }]],
    });
    expect(await host.line()).toBe("banner");
    host.send(run(host.workspace));
    expect(await host.line()).toBe('{"half":1}');
    const padded = await host.line();
    expect(Buffer.byteLength(padded) + 1).toBe(1000);
    const delta = JSON.parse(padded) as Event;
    expect([delta.type, delta.seq, delta.run_id]).toEqual(["model_delta", 1, "run-1"]);
    const settled = await host.line();
    expect(Buffer.byteLength(settled) + 1).toBe(300);
    expect((JSON.parse(settled) as Event).seq).toBe(2);
  });

  test("a paddedEvent of 1,048,577 bytes is written although oversized (deliberate fault)", async () => {
    const host = start({ runs: [[{ paddedEvent: "model_delta", bytes: LIMIT + 1 }]] });
    host.send(run(host.workspace));
    expect(Buffer.byteLength(await host.line()) + 1).toBe(LIMIT + 1);
  });

  test("outbound oversize in a run: protocol_error at the seq it would have had, the run is abandoned, the host goes on", async () => {
    const host = start({
      runs: [[{ accepted: true }, { event: "model_delta", data: { channel: "text", text: "x".repeat(LIMIT) } }, { event: "final_result", data: {} }]],
    });
    host.send(run(host.workspace, { session_id: "s" }));
    expect((await host.event()).type).toBe("accepted");
    expect(await host.event()).toEqual({
      protocol_version: 1,
      request_id: "r-1",
      run_id: "run-1",
      session_id: "s",
      seq: 2,
      type: "protocol_error",
      data: { error: "outbound event exceeded the protocol frame limit", discarded_type: "model_delta" },
    });
    host.send(hello("after"));
    const next = await host.event();
    expect([next.type, next.request_id]).toEqual(["hello", "after"]);
    // stderr is its own pipe and may trail stdout.
    await eventually(() => host.stderr().includes("dropping oversized outbound model_delta event"));
    expect(host.stderr()).toContain("dropping oversized outbound model_delta event");
  });

  test("outbound oversize of hello: protocol_error then exit 1", async () => {
    const host = start({ helloData: { sdk_version: "9".repeat(LIMIT) } });
    host.send(hello());
    expect(await host.rest()).toBe(
      '{"protocol_version":1,"request_id":"h-1","seq":1,"type":"protocol_error","data":{"error":"outbound event exceeded the protocol frame limit","discarded_type":"hello"}}\n',
    );
    expect(await host.exited).toBe(1);
  });

  test("a stderr flood of 20 MB interleaved with 500 streamed events: nothing lost, no deadlock", async () => {
    const streamed: Step[] = [];
    for (let i = 0; i < 500; i++) {
      streamed.push({ stderr: "0123456789abcdefghi\n", repeat: 2_000 }, { event: "model_delta", data: { channel: "text", text: "." } });
    }
    const host = start({ runs: [[{ event: "accepted" }, { event: "started" }, ...streamed, { event: "model_step", data: STEP_DATA }, { event: "settled" }, { event: "final_result" }]] });
    host.send(run(host.workspace));
    const events = await host.untilTerminal(20_000);
    expect(events.filter((e) => e.type === "model_delta")).toHaveLength(500);
    expect(events.at(-1)?.data.output).toBe(".".repeat(500));
    host.end();
    expect(await host.exited).toBe(0);
    expect((await host.stderrDone).length).toBe(20_000_000);
  });

  test("outbound limit: an event of exactly 1,048,575 bytes of JSON is written (1 MiB with its LF); one byte more is replaced", async () => {
    const toolStart = (content: string) => ({ toolCallId: "t-1", toolName: "write", input: { path: "big.txt", content } });
    const bare = JSON.stringify({ protocol_version: 1, request_id: "r-1", run_id: "run-1", seq: 2, type: "tool_start", data: toolStart("") });
    const fill = LIMIT - 1 - Buffer.byteLength(bare);
    const host = start({
      runs: [[{ accepted: true }, { event: "tool_start", data: toolStart("x".repeat(fill)) }, { event: "tool_start", data: toolStart("x".repeat(fill + 1)) }, { event: "final_result" }]],
    });
    host.send(run(host.workspace));
    expect((await host.event()).type).toBe("accepted");
    const line = await host.line();
    expect(Buffer.byteLength(line)).toBe(LIMIT - 1);
    expect((JSON.parse(line) as Event).type).toBe("tool_start");
    expect(await host.event()).toEqual({
      protocol_version: 1,
      request_id: "r-1",
      run_id: "run-1",
      seq: 3,
      type: "protocol_error",
      data: { error: "outbound event exceeded the protocol frame limit", discarded_type: "tool_start" },
    });
    host.send(hello("next"));
    expect((await host.event()).request_id).toBe("next");
  });

  test("exit and signal steps end the process mid-run", async () => {
    const crash = start({ runs: [[{ accepted: true }, { exit: 101 }]] });
    crash.send(run(crash.workspace));
    expect((await crash.event()).type).toBe("accepted");
    expect(await crash.exited).toBe(101);

    const killed = start({ runs: [[{ accepted: true }, { signal: "SIGKILL" }]] });
    killed.send(run(killed.workspace));
    expect((await killed.event()).type).toBe("accepted");
    await killed.exited;
    expect(killed.signalCode()).toBe("SIGKILL");
  });

  test("a scripted shutdown reply: its steps run, then exit 0 unless a step exits otherwise", async () => {
    const host = start({ shutdown: [{ event: "shutdown" }, { exit: 3 }] });
    host.send(req({ request_id: "s", command: "shutdown" }));
    expect((await host.event()).data).toEqual({ accepted: true });
    expect(await host.exited).toBe(3);
  });

  test("an event step without data gets the real host's data for the run; the final_result reflects the events written", async () => {
    const host = start({
      runs: [
        [
          { event: "accepted" },
          { event: "started" },
          { event: "model_delta", data: { channel: "text", text: "draft" } },
          { event: "provider_retry", data: { attempt: 1, max_attempts: 3, delay_ms: 1, error: "overloaded" } },
          { event: "model_delta", data: { channel: "reasoning", text: "thinking" } },
          { event: "model_delta", data: { channel: "text", text: "Hel" } },
          { event: "model_delta", data: { channel: "text", text: "lo" } },
          { event: "tool_start", data: { toolCallId: "t-1", toolName: "read", input: { path: "a" } } },
          { event: "model_step", data: STEP_DATA },
          { event: "settled" },
          { event: "final_result" },
        ],
      ],
    });
    host.send(run(host.workspace, { session_id: "scripted", tools: ["read"] }));
    const events = await host.untilTerminal();
    const sessionFile = join(realWorkspace(host), ".octet/sessions/scripted.jsonl");
    const accepted = events[0] as Event;
    expect(accepted.data).toMatchObject({ model: "gpt-5.6", resolved_model: "gpt-5.6", session_file: sessionFile, registered_tools: ["read"], extensions: [] });
    expect(Object.keys(accepted.data.effective_tool_policy as object)).toHaveLength(10);
    expect(events[1]?.data).toEqual({ model: "gpt-5.6" });
    expect(events.at(-2)?.data).toEqual({ status: "completed", head: "", error: "" });
    expect(events.at(-1)?.data).toEqual({ status: "completed", output: "Hello", error: "", filesChanged: [], toolCalls: 1, steps: 1, sessionFile });
    // An absence on stderr means something only once it is closed.
    host.end();
    expect(await host.stderrDone).not.toContain("terminal events");
  });

  test("an accepted event step counts as the run's accepted: a later defaultRun writes no second one", async () => {
    const host = start({ runs: [[{ event: "accepted" }, { defaultRun: true }]] });
    host.send(run(host.workspace));
    const types = (await host.untilTerminal()).map((e) => e.type);
    expect(types.filter((t) => t === "accepted")).toHaveLength(1);
    expect(types).toEqual(["accepted", "started", "model_delta", "model_delta", "model_delta", "model_step", "settled", "final_result"]);
  });

  test("steps that end a request with no terminal event, or with two, draw a warning on stderr (not fatal)", async () => {
    const host = start({ runs: [[{ event: "accepted" }], [{ defaultRun: true }, { event: "final_result" }], [{ defaultRun: true }]] });
    host.send(run(host.workspace, { request_id: "none" }));
    expect((await host.event()).type).toBe("accepted");
    host.send(run(host.workspace, { request_id: "two" }));
    const second = await host.untilTerminal();
    expect((await host.event()).type).toBe("final_result");
    expect(second[0]?.request_id).toBe("two");
    host.send(run(host.workspace, { request_id: "one" }));
    await host.untilTerminal();
    host.end();
    expect(await host.exited).toBe(0);
    const err = await host.stderrDone;
    expect(err).toContain('the steps for run request "none" wrote 0 terminal events');
    expect(err).toContain('the steps for run request "two" wrote 2 terminal events');
    expect(err).not.toContain('request "one"');
  });

  for (const [scenario, message] of [
    ['{"runs":[[{"evnt":"accepted"}]]}', 'scenario.runs[0][0]: not a step (keys "evnt")'],
    ['{"runs":[[{"event":"accepted","dat":{}}]]}', 'scenario.runs[0][0]: unknown key "dat"'],
    ['{"runs":[[{"sleepMs":"5"}]]}', "scenario.runs[0][0].sleepMs: must be a non-negative number"],
    ['{"runs":[[{"exit":1,"stall":true}]]}', "scenario.runs[0][0]: a step has exactly one of"],
    ['{"hello":[{"paddedEvent":"hello"}]}', 'scenario.hello[0]: missing key "bytes"'],
    ['{"hellodata":{}}', 'scenario: unknown key "hellodata"'],
    ['{"ignoreSigterm":"yes"}', "scenario.ignoreSigterm: must be a boolean"],
    ['{"runs":[[{"signal":"SIGNOPE"}]]}', "scenario.runs[0][0].signal: must be a signal name"],
    ['{"catalog":[{"id":"m","audio":true,"protocol":"AnthropicMessages"}]}', 'scenario.catalog: model "m": native audio input needs protocol OpenAiChat'],
    ['{"catalog":[{"id":"gpt-5.6","audio":true}]}', 'scenario.catalog: model "gpt-5.6": native audio input needs protocol OpenAiChat'],
    ['{"catalog":[{"id":"m","max_output_tokens":9,"context_window":8}]}', 'scenario.catalog: model "m": max_output_tokens must not exceed context_window'],
    ['{"catalog":[{"id":"m","input_modalities":["text"]}]}', 'scenario.catalog[0]: unknown key "input_modalities"'],
    ['{"runs":[[{"defaultRun":true,"answer":"a","envPresence":["X"]}]]}', "scenario.runs[0][0]: a defaultRun has answer or envPresence, not both"],
    ['{"runs":[[{"defaultRun":true,"envPresence":["A=B"]}]]}', "scenario.runs[0][0].envPresence[0]: must be an environment variable name"],
  ] as const) {
    test(`an invalid scenario exits 2 before reading: ${message}`, async () => {
      const host = start(scenario);
      await host.sendToExiting(hello()); // the double may be gone before the line arrives
      expect(await host.exited).toBe(2);
      expect(await host.stderrDone).toContain(`cannot load OCTET_HOST_DOUBLE_SCENARIO: ${message}`);
      expect(host.recorded()).toBe("");
    });
  }

  test("models can be scripted; a scenario that is not JSON makes the double exit 2 before reading", async () => {
    const host = start({ models: [{ event: "models", data: { models: [] }, envelope: { request_id: "req-999" } }] });
    host.send(req({ request_id: "m", command: "models" }));
    expect((await host.event()).request_id).toBe("req-999");

    const broken = start("{not json");
    expect(await broken.exited).toBe(2);
    expect(await broken.stderrDone).toContain("OCTET_HOST_DOUBLE_SCENARIO");
  });
});

test("sessions are created under <workspace>/.octet/sessions with private permissions", async () => {
  const host = start();
  host.send(run(host.workspace, { session_id: "perm" }));
  await host.untilTerminal();
  const dir = join(host.workspace, ".octet/sessions");
  expect(readdirSync(dir)).toEqual(["perm.jsonl"]);
  expect(statSync(dir).mode & 0o777).toBe(0o700);
});
