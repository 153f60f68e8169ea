/** Unit checks of the client's pure parts: strict JSON, the per-request rules, hello validation. */
import { describe, expect, test } from "bun:test";
import { findDuplicateKey, parseEventLine } from "../../src/native-host/strict-json.ts";
import { RequestTracker } from "../../src/native-host/request-tracker.ts";
import { validateHello } from "../../src/native-host/hello.ts";
import { HandshakeError } from "../../src/native-host/errors.ts";

describe("strict JSON", () => {
  test("duplicates are found at any depth, and only within one object", () => {
    expect(findDuplicateKey('{"a":1,"a":2}')).toBe("a");
    expect(findDuplicateKey('{"a":{"b":1,"c":{"d":[{"e":1,"e":2}]}}}')).toBe("e");
    expect(findDuplicateKey('{"a":{"x":1},"b":{"x":1},"c":[{"x":1},{"x":2}]}')).toBeUndefined();
    expect(findDuplicateKey('{"a":"{\\"a\\":1,\\"a\\":2}","b":["a","a"]}')).toBeUndefined();
    // Escaped spellings of the same name are the same member.
    expect(findDuplicateKey('{"a\\u0062":1,"ab":2}')).toBe("ab");
    expect(findDuplicateKey('{"q\\\\":1,"q\\\\\\"":2}')).toBeUndefined();
    expect(findDuplicateKey('{"e":{},"f":[],"g":"}","e2":1,"e":3}')).toBe("e");
  });

  test("non-objects and invalid JSON are refused with a reason", () => {
    expect(parseEventLine("[1]")).toEqual({ ok: false, reason: "not a JSON object (array)" });
    expect(parseEventLine("null")).toEqual({ ok: false, reason: "not a JSON object (null)" });
    expect(parseEventLine('"x"')).toEqual({ ok: false, reason: "not a JSON object (string)" });
    expect(parseEventLine("{\"a\":NaN}").ok).toBe(false);
    expect(parseEventLine("{} x").ok).toBe(false);
    expect(parseEventLine('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
  });
});

describe("request tracker", () => {
  const ev = (seq: number, type: string, data: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({ protocol_version: 1, request_id: "req-1", run_id: "run-1", seq, type, data, ...extra });

  test("seq must start at 1 and grow by one", () => {
    const t = new RequestTracker("run", "req-1", "run-1");
    expect(t.check(ev(2, "accepted", {})).ok).toBe(false);
    const u = new RequestTracker("run", "req-1", "run-1");
    expect(u.check(ev(1, "extension_notification", { message: "m" })).ok).toBe(true);
    expect(u.check(ev(3, "extension_notification", { message: "m" }))).toEqual({ ok: false, violation: 'seq 3 after 1 for request "req-1" (gap or repeat)' });
  });

  test("terminal types per command, and nothing after the terminal", () => {
    const hello = new RequestTracker("hello", "h-1");
    expect(hello.check({ protocol_version: 1, request_id: "h-1", seq: 1, type: "models", data: { models: [] } })).toEqual({ ok: false, violation: "hello request answered with a models event" });
    const run = new RequestTracker("run", "req-1", "run-1");
    expect(run.check(ev(1, "hello", {})).ok).toBe(false);
    const done = new RequestTracker("run", "req-1", "run-1");
    const final = { status: "error", output: "", error: "x", filesChanged: [], toolCalls: 0, steps: 0, sessionFile: "" };
    expect(done.check(ev(1, "final_result", final))).toMatchObject({ ok: true, terminal: true });
    expect(done.check(ev(2, "extension_notification", { message: "m" })).ok).toBe(false);
  });

  test("known payloads are shape-checked; extra keys are fine", () => {
    const t = new RequestTracker("run", "req-1", "run-1");
    expect(t.check(ev(1, "final_result", { status: "done", output: "", error: "", filesChanged: [], toolCalls: 0, steps: 0, sessionFile: "" }))).toEqual({
      ok: false,
      violation: 'final_result.data.status is "done", expected completed|blocked|error',
    });
    const u = new RequestTracker("run", "req-1", "run-1");
    expect(u.check(ev(1, "extension_notification", { message: "m", extra: 1 }, { trace: "t" })).ok).toBe(true);
  });

  test("the protocol_version must be the integer 1", () => {
    for (const v of [true, "1", 1.5, 2, undefined]) {
      const t = new RequestTracker("hello", "h-1");
      expect(t.check({ protocol_version: v, request_id: "h-1", seq: 1, type: "hello", data: {} }).ok).toBe(false);
    }
  });

  test("started needs accepted first; accepted only at seq 1", () => {
    const t = new RequestTracker("run", "req-1", "run-1");
    expect(t.check(ev(1, "started", { model: "gpt-5.6" }))).toEqual({ ok: false, violation: "started event before accepted" });
  });
});

describe("hello validation", () => {
  const good = {
    sdk_version: "0.9.0",
    protocol_version: 1,
    max_frame_bytes: 2_000_000,
    max_concurrent_runs: 1,
    commands: ["hello", "models", "run", "shutdown", "future"],
    features: { process_group_abort: true, in_band_abort: false, brand_new: true },
  };

  test("other versions and extra commands/features are tolerated; the frame ceiling never exceeds 1 MiB", () => {
    const info = validateHello(good);
    expect(info.sdkVersion).toBe("0.9.0");
    expect(info.maxFrameBytes).toBe(1_048_576);
    expect(info.commands).toEqual(["hello", "models", "run", "shutdown"]);
    expect(info.features.brand_new).toBe(true);
  });

  test("missing or malformed essentials are handshake errors", () => {
    for (const patch of [{ sdk_version: 1 }, { max_concurrent_runs: 0 }, { commands: "hello" }, { features: null }, { features: { process_group_abort: true } }]) {
      expect(() => validateHello({ ...good, ...patch })).toThrow(HandshakeError);
    }
  });
});
