/** docs/native-host-protocol.md §18 scenarios 57–61: what the client refuses to send (the double records what it receives). */
import { describe, expect, test } from "bun:test";
import { HostUnavailable, InvalidRequest, type RunParams } from "octet-native-host";
import { launchDouble, rejectionOf } from "./client-helpers.ts";

describe("outbound checks (§18 57–61)", () => {
  test("57: bad request, run and session ids throw locally and nothing is written", async () => {
    const { host, workspace, received } = await launchDouble();
    const base: RunParams = { workspace, model: "gpt-5.6", prompt: "x" };
    for (const run_id of ["a/b", "", "r".repeat(129), "white space", "ü"]) {
      expect(() => host.run({ ...base, run_id })).toThrow(InvalidRequest);
    }
    for (const session_id of ["a/b", "", "s".repeat(129), "../up"]) {
      expect(() => host.run({ ...base, session_id })).toThrow(/session_id must be 1-128 characters of A-Z a-z 0-9 - _ \. \(got/);
    }
    // ':' is in the seed's charset, but octet's host rejects it in a session id: refused locally.
    expect(() => host.run({ ...base, session_id: "customer:42" })).toThrow("session_id must not contain ':' (got \"customer:42\"): octet's host rejects it");
    expect(received().map((r) => r.command)).toEqual(["hello"]);
    // The longest valid ids (128 bytes) go through; ':' is fine in a run id.
    const result = await host.run({ ...base, run_id: `r:${"r".repeat(126)}`, session_id: `${"s".repeat(120)}.a_b-c42` }).result;
    expect(result.status).toBe("completed");
    expect(result.sessionFile.endsWith(`/${"s".repeat(120)}.a_b-c42.jsonl`)).toBe(true);
    await host.shutdown();
  });

  test("58: a line of 1,048,577 UTF-8 bytes is refused locally though its JS length is smaller; 1,048,576 is sent", async () => {
    const { host, workspace, received } = await launchDouble();
    const lineBytes = (options: RunParams, id: string) => Buffer.byteLength(JSON.stringify({ protocol_version: 1, request_id: id, command: "run", ...options })) + 1;
    /** A run whose line is `total` bytes: history text of two-byte "é" (plus one "a" for odd counts). */
    const sized = (total: number): RunParams => {
      const options: RunParams = { workspace, model: "gpt-5.6", prompt: "x", run_id: "run-x", history: [{ role: "user", text: "" }] };
      const extra = total - lineBytes(options, "req-2");
      options.history![0]!.text = "é".repeat(Math.floor(extra / 2)) + (extra % 2 === 1 ? "a" : "");
      return options;
    };
    const over = sized(1_048_577);
    expect(lineBytes(over, "req-2")).toBe(1_048_577);
    expect(JSON.stringify(over).length).toBeLessThan(1_048_576);
    expect(() => host.run(over)).toThrow("1048577 bytes as a UTF-8 line, over the host's 1048576-byte frame limit");
    expect(received().map((r) => r.command)).toEqual(["hello"]);
    // At the limit (request ids keep their length) it is written and served.
    const exact = sized(1_048_576);
    expect(lineBytes(exact, "req-3")).toBe(1_048_576);
    expect((await host.run(exact).result).status).toBe("completed");
    expect(received().map((r) => r.command)).toEqual(["hello", "run"]);
    await host.shutdown();
  });

  test("59: a second run while one is in flight throws; the double never sees two outstanding requests", async () => {
    const { host, workspace, received } = await launchDouble({ runs: [[{ defaultRun: true, answer: "slow" }]] });
    const first = host.run({ workspace, model: "gpt-5.6", prompt: "one" });
    expect(() => host.run({ workspace, model: "gpt-5.6", prompt: "two" })).toThrow(/is in flight; protocol 1 serves one request at a time/);
    expect(await rejectionOf(host.models())).toBeInstanceOf(InvalidRequest);
    expect((await first.result).status).toBe("completed");
    expect((await host.run({ workspace, model: "gpt-5.6", prompt: "two" }).result).status).toBe("completed");
    await host.shutdown();
    expect(received().map((r) => r.command)).toEqual(["hello", "run", "run", "shutdown"]);
  });

  test("60: unknown options and null booleans/arrays are refused; the double never receives them", async () => {
    const { host, workspace, received } = await launchDouble();
    const base: RunParams = { workspace, model: "gpt-5.6", prompt: "x" };
    // @ts-expect-error allow_file_mutations is not a run field (a typo the type rejects)
    expect(() => host.run({ ...base, allow_file_mutations: false })).toThrow('unknown run field "allow_file_mutations"');
    for (const field of ["allow_file_mutation", "history", "media", "custom_headers", "tools"]) {
      expect(() => host.run({ ...base, [field]: null } as unknown as RunParams)).toThrow(`${field} must be omitted rather than null`);
    }
    expect(() => host.run({ ...base, allow_file_mutation: "no" } as unknown as RunParams)).toThrow("allow_file_mutation must be a boolean");
    expect(() => host.run({ ...base, workspace: "relative/dir" })).toThrow("workspace must be an absolute path");
    expect(received().map((r) => r.command)).toEqual(["hello"]);
    // undefined fields are omitted, not sent as null.
    expect((await host.run({ ...base, system_prompt: undefined, allow_file_mutation: false }).result).status).toBe("completed");
    const run = received()[1]!;
    expect(Object.keys(run).sort()).toEqual(["allow_file_mutation", "command", "model", "prompt", "protocol_version", "request_id", "run_id", "workspace"]);
    await host.shutdown();
  });

  test("60: the documented bounds are checked before sending", async () => {
    const { host, workspace, received } = await launchDouble();
    const base: RunParams = { workspace, model: "gpt-5.6", prompt: "x" };
    const refused: [Partial<RunParams>, string][] = [
      [{ prompt: "x".repeat(512 * 1024 + 1) }, "prompt exceeds the 524288-byte limit"],
      [{ prompt_display_text: "bell\u0007" }, "prompt_display_text must be at most"],
      [{ model: " padded" }, "model must be non-empty"],
      [{ base_url: "http://user:pw@localhost:1234/v1" }, "without userinfo, query, or fragment"],
      [{ base_url: "http://localhost/v1", custom_headers: { Host: "x" } }, "custom header host is not allowed"],
      [{ base_url: "http://localhost/v1", custom_headers: { "x-tenant": "a\nb" } }, "invalid value for custom header x-tenant"],
      [{ base_url: "http://localhost/v1", custom_headers: { "bad name": "v" } }, 'invalid custom header name "bad name"'],
      [{ base_url: "http://localhost/v1", provider_mode: "chat" as never }, 'unsupported provider_mode "chat"'],
      [{ history: Array.from({ length: 257 }, () => ({ role: "user" as const, text: "h" })) }, "history exceeds the 256-message limit"],
      [{ media: [{ type: "image", path: "/a.png" }], image_paths: ["/b.png"] }, "media and legacy image_paths cannot be combined"],
      [{ media: Array.from({ length: 9 }, () => ({ type: "image" as const, path: "/a.png" })) }, "media exceeds the 8-image limit"],
      [{ media: Array.from({ length: 5 }, () => ({ type: "audio" as const, path: "/a.wav" })) }, "media exceeds the 4-audio limit"],
      [{ input_modalities: ["image", "image"] }, "input_modalities contains duplicate or excess values"],
      [{ system_prompt: "s".repeat(512 * 1024 + 1) }, "system prompt exceeds the 524288-byte limit"],
      [{ session_dir: "state/../x" }, "session_dir must not contain '..' components"],
    ];
    for (const [patch, message] of refused) expect(() => host.run({ ...base, ...patch })).toThrow(message);
    expect(received().map((r) => r.command)).toEqual(["hello"]);
    await host.shutdown();
  });

  test("61: after shutdown every call fails locally without writing", async () => {
    const { host, workspace, received } = await launchDouble();
    await host.shutdown();
    expect(await rejectionOf(host.models())).toBeInstanceOf(HostUnavailable);
    expect(() => host.run({ workspace, model: "gpt-5.6", prompt: "x" })).toThrow(HostUnavailable);
    expect(await rejectionOf(host.shutdown())).toBeInstanceOf(HostUnavailable);
    expect(received().map((r) => r.command)).toEqual(["hello", "shutdown"]);
  });
});
