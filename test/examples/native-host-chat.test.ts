/** examples/native-host-chat: the CLI against the host double, as a user runs it. */
import { describe, expect, test } from "bun:test";
import { temporaryDirectory } from "octet-extension/testing";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

import { DEFAULT_TIMEOUT_S, parseChatArgs } from "../../examples/native-host-chat/options.ts";

const CHAT = resolve(import.meta.dir, "../../examples/native-host-chat/chat.ts");

function chat(args: string[], scenario?: unknown, record?: string, extraEnv: Record<string, string> = {}) {
  const workspace = temporaryDirectory("octet-chat-");
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? workspace, ...extraEnv };
  if (scenario) env.OCTET_HOST_DOUBLE_SCENARIO = JSON.stringify(scenario);
  if (record) env.OCTET_HOST_DOUBLE_RECORD = record;
  return Bun.spawn([process.execPath, CHAT, "--double", "--workspace", workspace, ...args], { env, stdout: "pipe", stderr: "pipe" });
}

/** Everything the CLI wrote, its exit status, and how long it ran. */
async function finished(proc: ReturnType<typeof chat>) {
  const started = Date.now();
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code, ms: Date.now() - started };
}

test("a prompt streams its answer to stdout and usage to stderr", async () => {
  const proc = chat(["--session", "demo-1", "what", "is", "up?"]);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(code).toBe(0);
  expect(stdout).toBe("You said: what is up?\n");
  expect(stderr).toMatch(/^\[completed\] \d+ in, \d+ out, \d+ total tokens · \$\d+\.\d{6} · 1 step\(s\), 0 tool call\(s\)$/m);
  expect(stderr).toMatch(/^session: .*\/demo-1\.jsonl$/m);
});

test("a replaced attempt is announced and the run still completes", async () => {
  const accepted = { model: "gpt-5.6", resolved_model: "gpt-5.6", session_file: "/w/s.jsonl", registered_tools: [], extensions: [] };
  const usage = { input_tokens: 3, cache_read_tokens: 0, cache_write_tokens: 0, cache_write_1h_tokens: 0, output_tokens: 2, reasoning_tokens: 0, total_tokens: 5 };
  const run = [
    { event: "accepted", data: accepted },
    { event: "started", data: { model: "gpt-5.6" } },
    { event: "model_delta", data: { channel: "text", text: "draft" } },
    { event: "provider_retry", data: { attempt: 1, max_attempts: 3, delay_ms: 5, error: "overloaded" } },
    { event: "model_delta", data: { channel: "text", text: "final" } },
    { event: "model_step", data: { step: 1, turn_usage: usage, run_usage: usage, session_cost_microdollars: null, run_cost_microdollars: 7 } },
    { event: "provider_usage_uncertain", data: {} },
    { event: "settled", data: { status: "completed", head: "h", error: "" } },
    { event: "final_result", data: { status: "completed", output: "final", error: "", filesChanged: [], toolCalls: 0, steps: 1, sessionFile: "/w/s.jsonl" } },
  ];
  const proc = chat(["--model", "gpt-5.6", "go"], { runs: [run] });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(code).toBe(0);
  expect(stdout).toBe("draft\n[discarded 5 characters of a replaced attempt]\nfinal\n");
  expect(stderr).toContain("[completed] 3 in, 2 out, 5 total tokens · $0.000007 (at least: usage uncertain)");
});

test("Ctrl-C cancels the run: the host's group is terminated and the CLI exits 1", async () => {
  const accepted = { model: "gpt-5.6", resolved_model: "gpt-5.6", session_file: "/w/s.jsonl", registered_tools: [], extensions: [] };
  const record = join(temporaryDirectory("octet-chat-rec-"), "received.jsonl");
  const proc = chat(["--model", "gpt-5.6", "go"], { runs: [[{ event: "accepted", data: accepted }, { event: "started", data: { model: "gpt-5.6" } }, { stall: true }]] }, record);
  // Wait until the double has read the run request.
  for (let i = 0; i < 200 && !(existsSync(record) && readFileSync(record, "utf8").includes('"command":"run"')); i++) await Bun.sleep(25);
  await Bun.sleep(100);
  proc.kill("SIGINT");
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  expect(stderr).toContain("native-host-chat: run run-2 was cancelled");
  expect(code).toBe(1);
});

test("without octet-host the CLI says what to do, without a stack trace", async () => {
  const workspace = temporaryDirectory("octet-chat-");
  const proc = Bun.spawn([process.execPath, CHAT, "--host", join(workspace, "octet-host"), "--workspace", workspace, "hi"], { stdout: "pipe", stderr: "pipe" });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  expect(code).toBe(1);
  expect(stderr).toStartWith("native-host-chat: cannot start ");
  expect(stderr).toContain("(install octet-host, pass --host PATH, or try --double)");
  expect(stderr).not.toContain("    at ");
});

describe("the host's environment", () => {
  const SECRETS = {
    OPENAI_API_KEY: "sk-openai-test-value-1",
    ANTHROPIC_API_KEY: "sk-ant-test-value-2",
    MY_PROXY_TOKEN: "proxy-test-value-3",
    UNRELATED_SECRET: "unrelated-test-value-4",
  };

  test("provider credentials that are set reach the host without any option; nothing else does; no value is printed", async () => {
    const names = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "MY_PROXY_TOKEN", "UNRELATED_SECRET", "HOME", "PATH"];
    const proc = chat(["--model", "gpt-5.6", "hi"], { runs: [[{ defaultRun: true, envPresence: names }]] }, undefined, SECRETS);
    const { stdout, stderr, code } = await finished(proc);
    expect(stderr).not.toContain("native-host-chat:");
    expect(code).toBe(0);
    expect(stdout).toBe("OPENAI_API_KEY=set ANTHROPIC_API_KEY=set GEMINI_API_KEY=unset MY_PROXY_TOKEN=unset UNRELATED_SECRET=unset HOME=set PATH=set\n");
    for (const value of Object.values(SECRETS)) expect(stdout + stderr).not.toContain(value);
  });

  test("--env NAME (repeatable) passes more named variables; an unset one is reported by name; no value is printed", async () => {
    const names = ["MY_PROXY_TOKEN", "NOT_SET_ANYWHERE_42", "UNRELATED_SECRET", "OPENAI_API_KEY"];
    const proc = chat(["--model", "gpt-5.6", "--env", "MY_PROXY_TOKEN", "--env", "NOT_SET_ANYWHERE_42", "hi"], { runs: [[{ defaultRun: true, envPresence: names }]] }, undefined, SECRETS);
    const { stdout, stderr, code } = await finished(proc);
    expect(code).toBe(0);
    expect(stdout).toBe("MY_PROXY_TOKEN=set NOT_SET_ANYWHERE_42=unset UNRELATED_SECRET=unset OPENAI_API_KEY=set\n");
    expect(stderr).toContain("native-host-chat: --env NOT_SET_ANYWHERE_42 is not set; it is not passed");
    for (const value of Object.values(SECRETS)) expect(stdout + stderr).not.toContain(value);
  });

  test("--env refuses a name that is not an environment variable name (usage error, exit 2)", async () => {
    const { stderr, code } = await finished(chat(["--env", "BAD=NAME", "hi"]));
    expect(code).toBe(2);
    expect(stderr).toContain("--env needs a variable name");
  });
});

describe("output and deadlines", () => {
  test("a partial answer followed by an error is ended with a newline before the error", async () => {
    const run = [
      { accepted: true },
      { event: "started" },
      { event: "model_delta", data: { channel: "text", text: "partial answ" } },
      { stderr: "provider stream broke\n" },
      { exit: 1 },
    ];
    const { stdout, stderr, code } = await finished(chat(["--model", "gpt-5.6", "go"], { runs: [run] }));
    expect(code).toBe(1);
    expect(stdout).toBe("partial answ\n");
    expect(stderr).toContain("native-host-chat: octet-host exited with status 1");
  });

  test("usage names the default timeout (600 s) and --timeout 0 for none", async () => {
    const { stderr, code } = await finished(chat([]));
    expect(code).toBe(2);
    expect(stderr).toContain("--timeout SEC");
    expect(stderr).toContain("default 600");
    expect(stderr).toContain("0 = no limit");
    expect(stderr).toContain("--env NAME");
  });

  test("the parsed default is 600 s; --timeout 0 is no deadline", () => {
    expect(parseChatArgs(["hi"])).toMatchObject({ ok: true, options: { prompt: "hi", timeoutMs: DEFAULT_TIMEOUT_S * 1000, env: [] } });
    expect(DEFAULT_TIMEOUT_S).toBe(600);
    expect(parseChatArgs(["--timeout", "0", "hi"])).toMatchObject({ ok: true, options: { timeoutMs: undefined } });
    expect(parseChatArgs(["--timeout", "2.5", "--env", "A", "--env", "B_2", "hi"])).toMatchObject({ ok: true, options: { timeoutMs: 2500, env: ["A", "B_2"] } });
  });

  test("--timeout 0 means no deadline: a slow run completes", async () => {
    const { stdout, code } = await finished(chat(["--model", "gpt-5.6", "--timeout", "0", "slow"], { runs: [[{ sleepMs: 1200 }, { defaultRun: true }]] }));
    expect(code).toBe(0);
    expect(stdout).toBe("You said: slow\n");
  });

  test("--timeout SEC ends a stalled run: the host is terminated and the CLI exits 1", async () => {
    const { stdout, stderr, code, ms } = await finished(
      chat(["--model", "gpt-5.6", "--timeout", "1", "stall"], { runs: [[{ accepted: true }, { event: "started" }, { event: "model_delta", data: { channel: "text", text: "thinking" } }, { stall: true }]] }),
    );
    expect(code).toBe(1);
    expect(stdout).toBe("thinking\n");
    expect(stderr).toContain("timed out after 1000 ms");
    expect(ms).toBeLessThan(8_000);
  });

  test("--timeout refuses a negative or non-numeric value (usage error, exit 2)", async () => {
    for (const value of ["-1", "soon", ""]) {
      const { stderr, code } = await finished(chat([`--timeout=${value}`, "hi"]));
      expect(code).toBe(2);
      expect(stderr).toContain("--timeout must be");
    }
  });
});

describe("supervised.ts: one conversation over a supervised host", () => {
  const SUPERVISED = resolve(import.meta.dir, "../../examples/native-host-chat/supervised.ts");

  test("prompts from stdin are answered in order in one session; after a crash the next prompt continues on a relaunched host; host stderr goes to the log", async () => {
    const workspace = temporaryDirectory("octet-chat-");
    const record = join(temporaryDirectory("octet-chat-rec-"), "received.jsonl");
    const scenario = {
      hello: [{ stderr: "host ready\n" }, { event: "hello" }],
      runs: [
        [{ defaultRun: true }],
        [{ accepted: true }, { event: "started" }, { event: "model_delta", data: { channel: "text", text: "half" } }, { stderr: "provider connection reset\n" }, { exit: 1 }],
      ],
    };
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: workspace, OCTET_HOST_DOUBLE_SCENARIO: JSON.stringify(scenario), OCTET_HOST_DOUBLE_RECORD: record };
    const proc = Bun.spawn([process.execPath, SUPERVISED, "--double", "--workspace", workspace, "--session", "talk-1", "--model", "gpt-5.6"], {
      env,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    proc.stdin.write("one\ntwo\nthree\n");
    await proc.stdin.end();
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(stdout).toBe("You said: one\nhalf\nYou said: three\n");
    expect(stderr.match(/^host: host ready$/gm)).toHaveLength(2);
    expect(stderr).toMatch(/^host: provider connection reset$/m);
    expect(stderr).toContain("native-host-chat: turn 2 failed: octet-host exited with status 1");
    expect(stderr).toMatch(/^session: .*\/talk-1\.jsonl$/m);
    expect(code).toBe(1);
    const received = readFileSync(record, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(received.map((r) => r.command)).toEqual(["hello", "models", "run", "run", "hello", "models", "run", "shutdown"]);
    expect(received.filter((r) => r.command === "run").map((r) => [r.prompt, r.session_id])).toEqual([["one", "talk-1"], ["two", "talk-1"], ["three", "talk-1"]]);
  });
});
