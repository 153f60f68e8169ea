/**
 * The host double (`bin/octet-host-double`) itself, at the process level:
 * raw bytes over pipes, no client library. What it must do is spec
 * native-host §2–§13 and §17; `src/native-host/double/scenario.ts` defines
 * its scripts.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { Scenario } from "../../src/native-host/double/scenario.ts";

const DOUBLE = resolve(import.meta.dir, "../../bin/octet-host-double");
const MAIN = resolve(import.meta.dir, "../../src/native-host/double/main.ts");
const LIMIT = 1_048_576;

/** The seed's hello reply for request `probe-1`, byte for byte. */
const SEED_HELLO =
  '{"protocol_version":1,"request_id":"probe-1","seq":1,"type":"hello","data":{"sdk_version":"0.8.0","protocol_version":1,"max_frame_bytes":1048576,"max_concurrent_runs":1,"commands":["hello","models","run","shutdown"],"features":{"streaming":true,"persistent_sessions":true,"seed_history":true,"typed_media_input":true,"typed_image_input":true,"typed_audio_input":true,"prompt_display_text":true,"inline_models":true,"tools":true,"skills":true,"extensions":true,"process_group_abort":true,"in_band_abort":false}}}';

type Event = Record<string, unknown> & { seq: number; type: string; request_id?: string; data: Record<string, unknown> };

function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

interface Started {
  pid: number;
  workspace: string;
  record: string;
  /** Write raw text to stdin. */
  send(text: string | Uint8Array): void;
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
  stderr(): string;
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

  const decoder = new TextDecoder();
  let buffered = "";
  let closed = false;
  const lines: string[] = [];
  let wake: (() => void) | undefined;
  let err = "";
  void (async () => {
    for await (const chunk of proc.stdout) {
      buffered += decoder.decode(chunk, { stream: true });
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
  void (async () => {
    for await (const chunk of proc.stderr) err += decoder.decode(chunk, { stream: true });
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
    stderr: () => err,
    exited,
    signalCode: () => proc.signalCode,
    recorded: () => (existsSync(record) ? readFileSync(record, "utf8") : ""),
  };
}

const req = (fields: Record<string, unknown>) => `${JSON.stringify({ protocol_version: 1, ...fields })}\n`;
const hello = (id = "h-1") => req({ request_id: id, command: "hello" });
const run = (workspace: string, fields: Record<string, unknown> = {}) =>
  req({ request_id: "r-1", command: "run", run_id: "run-1", workspace, model: "gpt-5.6", prompt: "hi", ...fields });

async function expectInvalid(host: Started, line: string, message: string): Promise<Event> {
  host.send(line);
  const e = await host.event();
  expect(e.type).toBe("protocol_error");
  expect(e.request_id).toBe("invalid");
  expect(e.seq).toBe(1);
  expect("run_id" in e).toBe(false);
  expect(String(e.data.error)).toStartWith(message);
  return e;
}

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

  test("serial: a request written during a run is read only after the run's final_result", async () => {
    const host = start({ runs: [[{ sleepMs: 400 }, { defaultRun: true }]] });
    host.send(run(host.workspace));
    await Bun.sleep(100);
    host.send(hello("during"));
    await Bun.sleep(150);
    expect(host.recorded().split("\n").filter((l) => l !== "")).toHaveLength(1);
    const events = await host.untilTerminal();
    expect(events.at(-1)?.type).toBe("final_result");
    const reply = await host.event();
    expect([reply.type, reply.request_id]).toEqual(["hello", "during"]);
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
    expect((second[1] as Event).data.error).toBe(`image ${outside} is outside the configured workspace`);

    const bmp = join(host.workspace, "pic.bmp");
    writeFileSync(bmp, "bmp");
    host.send(run(host.workspace, { request_id: "r-3", media: [{ type: "image", path: bmp }] }));
    expect(((await host.untilTerminal()).at(-1) as Event).data.error).toBe(`unsupported image extension for ${bmp}`);

    const png = join(host.workspace, "ok.png");
    writeFileSync(png, "png");
    host.send(run(host.workspace, { request_id: "r-4", media: [{ type: "image", path: png }] }));
    expect(((await host.untilTerminal()).at(-1) as Event).data.status).toBe("completed");
  });

  test("inline route: resolved_model is host-inline/<24 hex>, model stays as requested", async () => {
    const host = start();
    host.send(run(host.workspace, { model: "local-model", base_url: "http://127.0.0.1:1234/v1", provider: "local", api_key: "secret", provider_mode: "openai-compatible" }));
    const accepted = (await host.untilTerminal())[0] as Event;
    expect(accepted.data.model).toBe("local-model");
    expect(String(accepted.data.resolved_model)).toMatch(/^host-inline\/[0-9a-f]{24}$/);
    expect(JSON.stringify(accepted)).not.toContain("secret");
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
  const cases: [string, (ws: string) => Record<string, unknown>, string][] = [
    ["prompt size", () => ({ prompt: "é".repeat(262145) }), "prompt exceeds the 524288-byte limit"],
    ["display text control char", () => ({ prompt_display_text: "a\u0007b" }), "prompt_display_text is malformed or exceeds the 262144-byte limit"],
    ["model id whitespace", () => ({ model: " m" }), "model id is empty, malformed, or too long"],
    ["provider id", () => ({ provider: "a/b" }), "provider id is malformed or too long"],
    ["api_key", () => ({ api_key: " k" }), "api_key is malformed or exceeds the 65536-byte limit"],
    ["base_url query", () => ({ base_url: "http://h/v1?x=1" }), "inline model base_url must be an absolute HTTP(S) URL without userinfo, query, or fragment"],
    ["base_url garbage", () => ({ base_url: "not a url" }), "inline model base_url is invalid"],
    [
      "provider_mode",
      () => ({ base_url: "http://h/v1", provider_mode: "unsupported" }),
      'unsupported provider_mode "unsupported"; use openai-compatible, openai-responses, or anthropic-messages',
    ],
    ["forbidden header", () => ({ base_url: "http://h", custom_headers: { Host: "x" } }), "custom header host is not allowed"],
    ["header count", () => ({ base_url: "http://h", custom_headers: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`x-${i}`, "v"])) }), "custom_headers exceeds the 64-header limit"],
    ["history count", () => ({ history: Array.from({ length: 257 }, () => ({ role: "user", text: "x" })) }), "history exceeds the 256-message limit"],
    ["media and image_paths", (ws) => ({ media: [{ type: "image", path: `${ws}/a.png` }], image_paths: [`${ws}/b.png`] }), "media and legacy image_paths cannot be combined"],
    ["audio count", (ws) => ({ media: Array.from({ length: 5 }, () => ({ type: "audio", path: `${ws}/a.wav` })) }), "media exceeds the 4-audio limit"],
    ["modalities", () => ({ input_modalities: ["image", "image"] }), "input_modalities contains duplicate or excess values"],
    ["system prompt", () => ({ system_prompt: "s".repeat(524289) }), "system prompt exceeds the 524288-byte limit"],
    ["workspace", (ws) => ({ workspace: `${ws}/nope` }), "workspace "],
    ["working_dir", () => ({ working_dir: tmpdir() }), "working directory must stay inside the workspace"],
    ["session_dir dots", () => ({ session_dir: "a/../b" }), "session directory must not contain '.' or '..' components"],
    ["session_dir outside", () => ({ session_dir: join(tmpdir(), "elsewhere") }), "session directory must stay inside the workspace unless allow_external_paths is enabled"],
    ["tool name", () => ({ tools: ["read", "teleport"] }), 'invalid tool name "teleport"'],
    ["reasoning", () => ({ reasoning: "extreme" }), 'invalid reasoning setting "extreme"'],
    ["resume missing", (ws) => ({ resume_session: `${ws}/none.jsonl` }), "resume session "],
  ];
  for (const [name, fields, message] of cases) {
    test(name, async () => {
      const host = start();
      host.send(run(host.workspace, { session_id: "s-1", ...fields(host.workspace) }));
      const e = await host.event();
      expect([e.type, e.seq, e.request_id, e.run_id, e.session_id]).toEqual(["final_result", 1, "r-1", "run-1", "s-1"]);
      expect(String(e.data.error)).toStartWith(message);
      expect(e.data).toMatchObject({ status: "error", output: "", filesChanged: [], toolCalls: 0, steps: 0, sessionFile: "" });
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

  test("resume_session must not be a symbolic link and must stay inside the session directory", async () => {
    const host = start();
    const sessions = join(host.workspace, ".octet/sessions");
    mkdirSync(sessions, { recursive: true });
    writeFileSync(join(sessions, "real.jsonl"), "");
    symlinkSync(join(sessions, "real.jsonl"), join(sessions, "link.jsonl"));
    host.send(run(host.workspace, { resume_session: join(sessions, "link.jsonl") }));
    expect(String((await host.event()).data.error)).toEndWith("must not be a symbolic link");
    writeFileSync(join(host.workspace, "stray.jsonl"), "");
    host.send(run(host.workspace, { resume_session: join(host.workspace, "stray.jsonl") }));
    expect(String((await host.event()).data.error)).toEndWith("must stay inside the configured session directory");
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
    for (let i = 0; i < 200 && host.recorded() === ""; i++) await Bun.sleep(10);
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

  test("a spawned child shares the double's process group and is killed when the double is signalled", async () => {
    const host = start({ runs: [[{ spawn: ["sleep", "600"] }, { accepted: true }, { stall: true }]] });
    host.send(run(host.workspace));
    expect((await host.event()).type).toBe("accepted");
    const match = /child-pid (\d+)/.exec(host.stderr());
    expect(match).not.toBeNull();
    const child = Number(match?.[1]);
    const stat = readFileSync(`/proc/${child}/stat`, "utf8");
    expect(Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2])).toBe(host.pid);
    process.kill(host.pid, "SIGTERM"); // the double only, not its group
    expect(await host.exited).toBe(143);
    let alive = true;
    for (let i = 0; i < 100 && alive; i++) {
      alive = existsSync(`/proc/${child}`) && !readFileSync(`/proc/${child}/stat`, "utf8").includes(") Z ");
      if (alive) await Bun.sleep(10);
    }
    expect(alive).toBe(false);
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

  test("a stderr flood of 20 MB while the run streams: nothing lost, no deadlock", async () => {
    const host = start({ runs: [[{ stderr: "0123456789abcdefghi\n", repeat: 1_000_000 }, { defaultRun: true }]] });
    host.send(run(host.workspace));
    expect((await host.untilTerminal(20_000)).at(-1)?.type).toBe("final_result");
    host.end();
    await host.exited;
    await Bun.sleep(50);
    expect(host.stderr().length).toBe(20_000_000);
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

  test("models can be scripted; a scenario that is not JSON makes the double exit 2 before reading", async () => {
    const host = start({ models: [{ event: "models", data: { models: [] }, envelope: { request_id: "req-999" } }] });
    host.send(req({ request_id: "m", command: "models" }));
    expect((await host.event()).request_id).toBe("req-999");

    const broken = start("{not json");
    expect(await broken.exited).toBe(2);
    expect(broken.stderr()).toContain("OCTET_HOST_DOUBLE_SCENARIO");
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
