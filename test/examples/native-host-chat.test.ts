/** examples/native-host-chat: the CLI against the host double, as a user runs it. */
import { expect, test } from "bun:test";
import { temporaryDirectory } from "octet-extension/testing";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const CHAT = resolve(import.meta.dir, "../../examples/native-host-chat/chat.ts");

function chat(args: string[], scenario?: unknown, record?: string) {
  const workspace = temporaryDirectory("octet-chat-");
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? workspace };
  if (scenario) env.OCTET_HOST_DOUBLE_SCENARIO = JSON.stringify(scenario);
  if (record) env.OCTET_HOST_DOUBLE_RECORD = record;
  return Bun.spawn([process.execPath, CHAT, "--double", "--workspace", workspace, ...args], { env, stdout: "pipe", stderr: "pipe" });
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
