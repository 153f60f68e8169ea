/** docs/native-host-protocol.md §18 scenarios 1–12: launch and handshake, against the double. */
import { describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HandshakeError, HostSpawnError, InvalidRequest, NativeHost, ProtocolViolation, Timeout } from "octet-native-host";
import { DOUBLE, doubleEnv, launchDouble, processesWithEnv, readRecord, rejectionOf, tempDir } from "./client-helpers.ts";

/** The hello data of the seed (octet 0.8.0). */
const HELLO = {
  sdk_version: "0.8.0",
  protocol_version: 1,
  max_frame_bytes: 1048576,
  max_concurrent_runs: 1,
  commands: ["hello", "models", "run", "shutdown"],
  features: {
    streaming: true, persistent_sessions: true, seed_history: true, typed_media_input: true, typed_image_input: true, typed_audio_input: true,
    prompt_display_text: true, inline_models: true, tools: true, skills: true, extensions: true, process_group_abort: true, in_band_abort: false,
  },
};

/** Launch the double with `scenario`; the launch must fail. Returns the error, the record and the pid seen. */
async function failedLaunch(scenario: Parameters<typeof doubleEnv>[0], extra: Partial<Parameters<typeof NativeHost.launch>[0]> = {}) {
  const record = join(tempDir(), "received.jsonl");
  const error = await rejectionOf(NativeHost.launch({ path: DOUBLE, cwd: tempDir(), env: doubleEnv(scenario, record), graceMs: 300, handshakeTimeoutMs: 5_000, ...extra }));
  // Every failed launch terminates the host: no process started for it is left.
  expect(processesWithEnv(`OCTET_HOST_DOUBLE_RECORD=${record}`)).toEqual([]);
  return { error, received: readRecord(record) };
}

describe("handshake (§18 1–12)", () => {
  test("1: a 0.8.0 hello makes the client ready and exposes version and features", async () => {
    const { host, received } = await launchDouble();
    expect(host.hello.sdkVersion).toBe("0.8.0");
    expect(host.hello.protocolVersion).toBe(1);
    expect(host.hello.maxFrameBytes).toBe(1048576);
    expect(host.hello.maxConcurrentRuns).toBe(1);
    expect(host.hello.commands).toEqual(["hello", "models", "run", "shutdown"]);
    expect(host.hello.features).toEqual(HELLO.features);
    expect(received()).toEqual([{ protocol_version: 1, request_id: "hello-1", command: "hello" }]);
    // Launched as its own process-group leader (pgid == pid).
    const stat = await Bun.file(`/proc/${host.pid}/stat`).text();
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    expect(Number(fields[2])).toBe(host.pid);
    await host.shutdown();
  });

  test("2: hello.data.protocol_version 2 is a handshake mismatch; the host is killed and nothing else is sent", async () => {
    const { error, received } = await failedLaunch({ helloData: { protocol_version: 2 } });
    expect(error).toBeInstanceOf(HandshakeError);
    expect(error.message).toContain("protocol_version 2");
    expect(received.map((r) => r.command)).toEqual(["hello"]);
  });

  for (const bad of ["1", true]) {
    test(`3: an envelope protocol_version of ${JSON.stringify(bad)} is a protocol violation`, async () => {
      const { error } = await failedLaunch({ hello: [{ event: "hello", data: HELLO, envelope: { protocol_version: bad } }] });
      expect(error).toBeInstanceOf(ProtocolViolation);
      expect(error.message).toContain("protocol_version");
    });
  }

  test("4: hello without process_group_abort is refused", async () => {
    const { error } = await failedLaunch({ helloData: { features: { process_group_abort: null } } });
    expect(error).toBeInstanceOf(HandshakeError);
    expect(error.message).toContain("process_group_abort");
  });

  test("4: hello with in_band_abort true is refused", async () => {
    const { error } = await failedLaunch({ helloData: { features: { in_band_abort: true } } });
    expect(error).toBeInstanceOf(HandshakeError);
    expect(error.message).toContain("in_band_abort");
  });

  for (const frame of [null, "1048576", 1.5, 0]) {
    test(`5: max_frame_bytes ${JSON.stringify(frame)} (missing or not a positive integer) is a handshake error`, async () => {
      const { error } = await failedLaunch({ helloData: { max_frame_bytes: frame } });
      expect(error).toBeInstanceOf(HandshakeError);
      expect(error.message).toContain("max_frame_bytes");
    });
  }

  test("5: a smaller max_frame_bytes becomes the outbound ceiling", async () => {
    // A host announcing 4096 bytes keeps its own lines under it too (the client holds it to that).
    const { host, workspace, received } = await launchDouble({ helloData: { max_frame_bytes: 4096 }, runs: [[{ defaultRun: true, answer: "ok" }]] });
    expect(host.hello.maxFrameBytes).toBe(4096);
    const base = { workspace, model: "gpt-5.6", run_id: "r-1" };
    // A line of exactly 4096 bytes is allowed, 4097 is not.
    const overhead = Buffer.byteLength(JSON.stringify({ protocol_version: 1, request_id: "req-1", command: "run", ...base, prompt: "" })) + 1;
    expect(() => host.run({ ...base, prompt: "x".repeat(4096 - overhead + 1) })).toThrow(InvalidRequest);
    const run = host.run({ ...base, prompt: "x".repeat(4096 - overhead) });
    expect((await run.result).status).toBe("completed");
    expect(received().filter((r) => r.command === "run")).toHaveLength(1);
    await host.shutdown();
  });

  test("6: a hello reply under another request_id is an unknown-request-id violation", async () => {
    const { error } = await failedLaunch({ hello: [{ event: "hello", data: HELLO, envelope: { request_id: "other-1" } }] });
    expect(error).toBeInstanceOf(ProtocolViolation);
    expect(error.message).toContain('unknown request_id "other-1"');
  });

  test("7: a hello reply at seq 2 is a seq-gap violation", async () => {
    const { error } = await failedLaunch({ hello: [{ event: "hello", data: HELLO, envelope: { seq: 2 } }] });
    expect(error).toBeInstanceOf(ProtocolViolation);
    expect(error.message).toContain("seq 2 after 0");
  });

  test("8: a non-JSON banner on stdout is a violation, reported with the stderr tail", async () => {
    const { error } = await failedLaunch({ preamble: [{ stderr: "starting octet-host diagnostics\n" }, { raw: "octet-host 0.8.0 ready\n" }] });
    expect(error).toBeInstanceOf(ProtocolViolation);
    expect(error.message).toContain("not JSON");
    expect(error.message).toContain("starting octet-host diagnostics");
  });

  test("9: a host that never answers hello times out; the group is terminated (TERM then KILL)", async () => {
    const started = Date.now();
    const { error } = await failedLaunch({ hello: [{ stall: true }], ignoreSigterm: true }, { handshakeTimeoutMs: 300, graceMs: 300 });
    expect(error).toBeInstanceOf(Timeout);
    expect(error.message).toContain("hello timed out after 300 ms");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test("10: a missing binary is a HostSpawnError", async () => {
    const error = await rejectionOf(NativeHost.launch({ path: join(tempDir(), "no-such-octet-host") }));
    expect(error).toBeInstanceOf(HostSpawnError);
    expect(error.message).toContain("cannot start");
  });

  test("10: a binary that is not executable is a HostSpawnError", async () => {
    const path = join(tempDir(), "octet-host");
    writeFileSync(path, "#!/bin/sh\nexit 0\n");
    chmodSync(path, 0o644);
    const error = await rejectionOf(NativeHost.launch({ path }));
    expect(error).toBeInstanceOf(HostSpawnError);
  });

  test("10: a host that exits 127 at once is a HostSpawnError with status and stderr tail", async () => {
    const path = join(tempDir(), "octet-host");
    writeFileSync(path, "#!/bin/sh\necho 'octet-host: libfoo.so: cannot open shared object file' >&2\nexit 127\n");
    chmodSync(path, 0o755);
    const error = await rejectionOf(NativeHost.launch({ path, handshakeTimeoutMs: 5_000 }));
    expect(error).toBeInstanceOf(HostSpawnError);
    expect((error as HostSpawnError).exitCode).toBe(127);
    expect((error as HostSpawnError).stderrTail).toContain("cannot open shared object file");
  });

  test("11: without models in hello.commands, models() fails locally and writes nothing", async () => {
    const { host, received } = await launchDouble({ helloData: { commands: ["hello", "run", "shutdown"] } });
    const error = await rejectionOf(host.models());
    expect(error).toBeInstanceOf(InvalidRequest);
    expect(error.message).toContain("does not offer the models command");
    await host.shutdown();
    expect(received().map((r) => r.command)).toEqual(["hello", "shutdown"]);
  });

  test("12: prompt_display_text is refused when the host does not offer it; the double never receives the key", async () => {
    const { host, workspace, received } = await launchDouble({ helloData: { features: { prompt_display_text: false } } });
    expect(() => host.run({ workspace, model: "gpt-5.6", prompt: "hi", prompt_display_text: "hi there" })).toThrow(/prompt_display_text is not offered/);
    expect((await host.run({ workspace, model: "gpt-5.6", prompt: "hi" }).result).status).toBe("completed");
    await host.shutdown();
    const runs = received().filter((r) => r.command === "run");
    expect(runs).toHaveLength(1);
    expect("prompt_display_text" in runs[0]!).toBe(false);
  });
});
