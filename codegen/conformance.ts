/**
 * `octet-extension conformance [--dir DIR] [--tool NAME] [--args JSON]
 * [--allow-unexercised] [-- CMD ARGS…]`: a black-box check any extension can
 * run, whatever its language. Each probe starts the extension afresh as octet
 * does (staged entry point, cleared environment, the strict test host's
 * rules) and reports PASS, FAIL or SKIP with the reason; the probes that call
 * a tool use arguments its schema accepts, and one whose calls were all
 * refused before the handler ran is NOT EXERCISED. The exit status is 1 when
 * any probe failed (docs/tools.md).
 */
import type { JsonRecord } from "octet-extension/validation";
import { resolve } from "node:path";
import { MAX_MESSAGE_BYTES } from "octet-extension/protocol";
import { type HostManifest, loadManifest, TestHost, type TestHostOptions } from "octet-extension/testing";
import { argumentRefusal } from "./argument-refusal.ts";
import { ToolError } from "./errors.ts";
import { sampleArguments } from "./sample-arguments.ts";
import { escapeControls } from "./terminal-text.ts";

/** One probe's verdict. */
export interface ProbeResult {
  name: string;
  verdict: "PASS" | "FAIL" | "SKIP";
  detail: string;
}

/** How `conformance` chooses the call its probes make. */
export interface ConformanceOptions {
  /** The tool to call (`--tool`); otherwise the first whose generated arguments are accepted. */
  tool?: string;
  /** Its arguments as JSON text (`--args`); otherwise generated from its parameters schema. */
  args?: string;
  /** A probe whose calls were all refused before the handler ran passes (`--allow-unexercised`). */
  allowUnexercised?: boolean;
}

/** The tool call the probes make. */
interface Call {
  tool: string;
  args: unknown;
}

/** What the probes need: the manifest, how to start a fresh process, and the call to make. */
interface Subject {
  manifest: HostManifest;
  start(): Promise<TestHost>;
  call: Call | undefined;
}

/** The replies one probe's calls got: how many, and how many were refused before a handler ran. */
class CallLog {
  made = 0;
  refused = 0;
  refusal: string | undefined;

  record(reply: JsonRecord): JsonRecord {
    this.made++;
    const refusal = argumentRefusal(reply);
    if (refusal !== undefined) {
      this.refused++;
      this.refusal ??= refusal;
    }
    return reply;
  }

  /** No call of the probe reached the handler: every reply was a refusal, or none came. */
  get unexercised(): boolean {
    return this.refused === this.made;
  }
}

/** octet's bounds the probes hold the extension to. */
const CANCEL_GRACE_MS = 2_000;
/** The cancellation probe cancels a call this long after sending it. */
const CANCEL_AFTER_MS = 100;
const EXIT_BOUND_MS = 4_000;
const IN_FLIGHT = 64;

/** A trial call that has not answered in this time is running its handler (a refusal is immediate). */
const TRIAL_MS = 2_000;
/** At most this many tools are tried for one whose arguments are accepted. */
const MAX_TRIALS = 32;

type Verdict = Omit<ProbeResult, "name">;
/** `run03` replaces `run` on API 0.3, whose canonical wire ends the stream where 0.2 answers -32700 (docs/api-0.3.md). */
type Probe = { name: string; name03?: string; only03?: true; calls?: true; run(subject: Subject, log: CallLog): Promise<Verdict>; run03?(subject: Subject, log: CallLog): Promise<Verdict> };

const pass = (detail: string) => ({ verdict: "PASS" as const, detail });
const fail = (detail: string) => ({ verdict: "FAIL" as const, detail });
const skip = (detail: string) => ({ verdict: "SKIP" as const, detail });

/** Run `body` on a fresh process, then kill it; violations of octet's rules fail the probe. */
async function withHost(subject: Subject, body: (host: TestHost) => Promise<Omit<ProbeResult, "name">>): Promise<Omit<ProbeResult, "name">> {
  const host = await subject.start();
  try {
    const result = await body(host);
    if (result.verdict === "PASS" && host.violations.length > 0) return fail(`octet would kill it: ${host.violations[0]}`);
    return result;
  } catch (error) {
    const violation = host.violations[0];
    return fail(violation ? `octet would kill it: ${violation}` : (error as Error).message);
  } finally {
    host.kill();
  }
}

/** A harmless request every extension answers after initialize: an unknown method (`-32601`). */
async function stillServing(host: TestHost): Promise<boolean> {
  const reply = await host.request("octet-conformance/ping", {});
  return (reply.error as JsonRecord | undefined)?.code === -32601;
}

/** `value` as octet-canonical-json-v1 text for the probes' own frames (ASCII keys, integers only). */
function canonicalLine(value: unknown): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(sorted) : v !== null && typeof v === "object" ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as JsonRecord)[k])])) : v;
  return JSON.stringify(sorted(value));
}

/** API 0.3: after `write`, the extension must end the stream without answering (and exit 0). */
function endsStream03(what: string, write: (host: TestHost) => void): (subject: Subject) => Promise<Verdict> {
  return (subject) =>
    withHost(subject, async (host) => {
      await host.initialize();
      const before = host.extensionFrames().length;
      write(host);
      const code = await Promise.race([host.exited, Bun.sleep(EXIT_BOUND_MS).then(() => "timeout" as const)]);
      if (code === "timeout") return fail(`${what} must end the stream (API 0.3); still running after ${EXIT_BOUND_MS} ms`);
      const answered = host.extensionFrames().slice(before);
      if (answered.length > 0) return fail(`${what} must end the stream before dispatch, but it answered ${JSON.stringify(answered[0])}`);
      return code === 0 ? pass(`${what} ends the stream unanswered, exit 0`) : fail(`${what} ended the stream with exit ${code}`);
    });
}

const initializeLine = (host: TestHost, id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params: host.initializeParams() });

const PROBES: Probe[] = [
  {
    name: "initialize",
    run: (subject) =>
      withHost(subject, async (host) => {
        const result = await host.initialize();
        return pass(`API ${String(result.api_version)}, ${(result.tools as unknown[] | undefined)?.length ?? 0} tools, reply within octet's closed key sets`);
      }),
  },
  {
    name: "split frames",
    run: (subject) =>
      withHost(subject, async (host) => {
        const line = initializeLine(host, 1);
        const thirds = [line.slice(0, 7), line.slice(7, line.length >> 1), line.slice(line.length >> 1)];
        for (const part of thirds) {
          host.sendRaw(part, { newline: false });
          await Bun.sleep(30);
        }
        host.sendRaw("");
        const reply = await host.waitForReply(1, 5_000);
        return "result" in reply ? pass("an initialize sent in three writes is answered once") : fail(`initialize in pieces failed: ${JSON.stringify(reply.error)}`);
      }),
    run03: (subject) =>
      withHost(subject, async (host) => {
        await host.initialize();
        const line = canonicalLine({ id: 900, jsonrpc: "2.0", method: "octet-conformance/ping", params: {} });
        for (const part of [line.slice(0, 7), line.slice(7, line.length >> 1), line.slice(line.length >> 1)]) {
          host.sendRaw(part, { newline: false });
          await Bun.sleep(30);
        }
        host.sendRaw("");
        const reply = await host.waitForReply(900, 5_000);
        return (reply.error as JsonRecord | undefined)?.code === -32601 ? pass("a canonical request sent in three writes is answered once (-32601)") : fail(`a request in pieces got ${JSON.stringify(reply)}`);
      }),
  },
  {
    name: "CRLF and blank lines",
    run: (subject) =>
      withHost(subject, async (host) => {
        host.sendRaw("\n  \n\t\n", { newline: false });
        host.sendRaw(`${initializeLine(host, 1)}\r\n`, { newline: false });
        const reply = await host.waitForReply(1, 5_000);
        if (!("result" in reply)) return fail(`initialize ending in CRLF failed: ${JSON.stringify(reply.error)}`);
        const extra = host.extensionFrames().filter((f) => "error" in f && f.id === null);
        return extra.length === 0 ? pass("blank lines ignored, CRLF accepted") : fail(`answered blank lines: ${JSON.stringify(extra[0])}`);
      }),
    name03: "CR in a frame",
    run03: endsStream03("a frame ending in CRLF", (host) => host.sendRaw(`${canonicalLine({ id: 900, jsonrpc: "2.0", method: "octet-conformance/ping", params: {} })}\r`)),
  },
  {
    name: "non-canonical frame",
    only03: true,
    run: () => Promise.resolve(skip("API 0.3 only (the legacy wire takes any JSON object per line)")),
    run03: endsStream03("a frame with whitespace (not canonical)", (host) => host.sendRaw('{"id": 900, "jsonrpc": "2.0", "method": "octet-conformance/ping", "params": {}}')),
  },
  {
    name: "oversize frame",
    run: (subject) =>
      withHost(subject, async (host) => {
        await host.initialize();
        host.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: 900, method: "octet-conformance/big", params: { pad: "x".repeat(MAX_MESSAGE_BYTES) } }));
        const refusal = await host.waitForFrame((f) => "error" in f && (f.id === null || f.id === 900), 5_000).catch(() => undefined);
        if (!refusal || refusal.id !== null || (refusal.error as JsonRecord).code !== -32700) return fail(`a line over 1 MiB must be answered -32700 with id null, got ${refusal ? JSON.stringify(refusal) : "nothing"}`);
        return (await stillServing(host)) ? pass("a line over 1 MiB is answered -32700 with id null, then keeps serving") : fail("not serving after an oversize line");
      }),
    run03: endsStream03("a frame over the selected max_frame_bytes", (host) =>
      host.sendRaw(canonicalLine({ id: 900, jsonrpc: "2.0", method: "octet-conformance/big", params: { pad: "x".repeat(Number(host.contract03?.limits.max_frame_bytes ?? MAX_MESSAGE_BYTES)) } })),
    ),
  },
  {
    name: "invalid UTF-8",
    run: (subject) =>
      withHost(subject, async (host) => {
        await host.initialize();
        host.sendRaw(new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]), { newline: false });
        const parseError = await host.waitForFrame((f) => "error" in f && f.id === null, 3_000).catch(() => undefined);
        if (!parseError || (parseError.error as JsonRecord).code !== -32700) return fail("no -32700 with id null for a line of invalid UTF-8");
        return (await stillServing(host)) ? pass("-32700 with id null, then keeps serving") : fail("not serving after invalid UTF-8");
      }),
    run03: endsStream03("a frame of invalid UTF-8", (host) => host.sendRaw(new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]), { newline: false })),
  },
  {
    name: "stdout purity",
    calls: true,
    run: (subject, log) =>
      withHost(subject, async (host) => {
        await host.initialize();
        const call = subject.call;
        if (call) log.record(await host.request("tool/call", { name: call.tool, arguments: call.args, context: host.executionContext() }));
        await host.shutdown();
        return pass("every stdout line was a JSON-RPC 2.0 frame octet accepts");
      }),
  },
  {
    name: "cancellation",
    calls: true,
    run: (subject, log) => {
      const call = subject.call;
      if (subject.manifest.api_version === "0.1") return Promise.resolve(skip("API 0.1 has no cancellation"));
      if (!call) return Promise.resolve(skip("no tool to call"));
      return withHost(subject, async (host) => {
        await host.initialize();
        const id = host.peekNextId();
        const reply = host.request("tool/call", { name: call.tool, arguments: call.args, context: host.executionContext({ execution_scope: "conformance" }) }).then((r) => log.record(r));
        // Cancel a running handler: a call cancelled as it arrives may be dropped before it starts, which exercises nothing.
        const early = await Promise.race([reply, Bun.sleep(CANCEL_AFTER_MS).then(() => undefined)]);
        host.cancel(id, "conformance check");
        if (early) {
          if (!(await stillServing(host))) return fail("not serving after a $/cancelRequest for a call it had answered");
          return pass(`answered within ${CANCEL_AFTER_MS} ms, before the cancel was sent; the late cancel was ignored`);
        }
        const started = performance.now();
        const answered = await Promise.race([reply, Bun.sleep(CANCEL_GRACE_MS).then(() => undefined)]);
        if (!answered) return fail(`no reply within octet's ${CANCEL_GRACE_MS} ms grace after $/cancelRequest (octet ends the process)`);
        return pass(`answered ${Math.round(performance.now() - started)} ms after the cancel`);
      });
    },
  },
  {
    name: `${IN_FLIGHT} in flight`,
    name03: "selected in flight",
    calls: true,
    run: (subject, log) => {
      const call = subject.call;
      if (!call) return Promise.resolve(skip("no tool to call"));
      return withHost(subject, async (host) => {
        await host.initialize();
        // API 0.3 admits the selected max_concurrent_requests (one more is -32012), not octet's legacy 64.
        const inFlight = Number(host.contract03?.limits.max_concurrent_requests ?? IN_FLIGHT);
        const replies = await Promise.all(
          Array.from({ length: inFlight }, () => host.request("tool/call", { name: call.tool, arguments: call.args, context: host.executionContext() }).then((r) => log.record(r))),
        );
        const refused = replies.filter((r) => [-32000, -32012].includes((r.error as JsonRecord | undefined)?.code as number) || /queue|draining|exhausted/i.test(String((r.error as JsonRecord | undefined)?.message)));
        return refused.length === 0 ? pass(`${inFlight} concurrent calls all admitted and answered`) : fail(`${refused.length} of ${inFlight} refused: ${JSON.stringify(refused[0]!.error)}`);
      });
    },
  },
  {
    name: "shutdown",
    run: (subject) =>
      withHost(subject, async (host) => {
        await host.initialize();
        const started = performance.now();
        const code = await host.shutdown();
        const ms = Math.round(performance.now() - started);
        const ack = subject.manifest.api_version === "0.3" ? '{"terminal":"shutdown"}' : "{}";
        return code === 0 && ms <= EXIT_BOUND_MS ? pass(`${ack} then exit 0 in ${ms} ms`) : fail(`exit ${code} after ${ms} ms`);
      }),
  },
  {
    name: "EOF",
    run: (subject) =>
      withHost(subject, async (host) => {
        await host.initialize();
        const started = performance.now();
        const code = await Promise.race([host.closeStdin(), Bun.sleep(EXIT_BOUND_MS + 1_000).then(() => "timeout" as const)]);
        const ms = Math.round(performance.now() - started);
        if (code === "timeout") return fail(`still running ${ms} ms after stdin closed`);
        return ms <= EXIT_BOUND_MS ? pass(`exit ${code} ${ms} ms after stdin closed`) : fail(`took ${ms} ms to exit after stdin closed`);
      }),
  },
];

/** The `--args` text as tool arguments, or a one-line error naming the fix. */
function parseArgs(text: string): unknown {
  let args: unknown;
  try {
    args = JSON.parse(text);
  } catch (error) {
    throw new ToolError(`--args is not JSON (${(error as Error).message}): give the arguments as one JSON object, e.g. --args '{"title":"x"}'`);
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) throw new ToolError(`--args must be a JSON object (tool arguments are an object), e.g. --args '{"title":"x"}'`);
  return args;
}

const shorten = (text: string, max = 300) => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * Choose the call the probes make, from the tools and schemas of the
 * extension's initialize reply: `--tool`/`--args` when given; otherwise the
 * first tool whose arguments generated from its schema a trial call does not
 * refuse. Returns the call and how it was chosen.
 */
async function chooseCall(subject: Omit<Subject, "call">, options: ConformanceOptions): Promise<{ call: Call; how: string } | undefined> {
  const given = options.args === undefined ? undefined : parseArgs(options.args);
  const host = await subject.start();
  try {
    let tools: JsonRecord[];
    try {
      tools = (((await host.initialize()).tools ?? []) as JsonRecord[]).filter((t) => typeof t?.name === "string");
    } catch {
      // The probes report why; call the first declared tool as octet would see it.
      const first = options.tool ?? subject.manifest.contributes.tools[0];
      return first === undefined ? undefined : { call: { tool: first, args: given ?? {} }, how: "initialize failed, so nothing was generated" };
    }
    const names = tools.map((t) => String(t.name));
    if (options.tool !== undefined && !names.includes(options.tool)) throw new ToolError(`--tool ${options.tool}: the extension has no such tool; its tools: ${names.join(", ") || "none"}`);
    const candidates = options.tool === undefined ? tools : tools.filter((t) => t.name === options.tool);
    if (candidates.length === 0) {
      if (given !== undefined) throw new ToolError("--args: the extension has no tool to call");
      return undefined;
    }
    if (given !== undefined) return { call: { tool: String(candidates[0]!.name), args: given }, how: "--args" };
    const notes: string[] = [];
    let fallback: Call | undefined;
    for (const tool of candidates.slice(0, MAX_TRIALS)) {
      const name = String(tool.name);
      const sample = sampleArguments(tool.parameters ?? { type: "object" });
      if (!sample) {
        notes.push(`no arguments satisfy ${name}'s schema`);
        continue;
      }
      const call = { tool: name, args: sample.value };
      fallback ??= call;
      if (options.tool !== undefined) break;
      const reply = await Promise.race([host.request("tool/call", { name, arguments: call.args, context: host.executionContext() }).catch(() => undefined), Bun.sleep(TRIAL_MS).then(() => undefined)]);
      const refusal = argumentRefusal(reply);
      if (refusal === undefined) return { call, how: ["generated from its parameters schema", ...notes].join("; ") };
      notes.push(`${name} refused it: ${refusal}`);
    }
    const call = fallback ?? { tool: String(candidates[0]!.name), args: {} };
    return { call, how: [fallback ? "generated from its parameters schema" : "nothing could be generated", ...notes].join("; ") };
  } finally {
    host.kill();
  }
}

/** `verdict` for a probe whose calls were all refused before the handler ran. */
function unexercised(verdict: Verdict, log: CallLog, allowed: boolean): Verdict {
  if (log.made === 0) {
    // Nothing was answered: a failed probe already says why; a passing one proved nothing about the handler.
    if (verdict.verdict === "FAIL") return verdict;
    return allowed ? { verdict: verdict.verdict, detail: `NOT EXERCISED (allowed): no call was answered; ${verdict.detail}` } : fail(`NOT EXERCISED: no call was answered; ${verdict.detail}`);
  }
  const what = `${log.made === 1 ? "its call was" : `all ${log.made} calls were`} refused by argument validation before the handler ran (${log.refusal})`;
  if (verdict.verdict === "FAIL") return fail(`${verdict.detail}; NOT EXERCISED: ${what}`);
  if (allowed) return { verdict: verdict.verdict, detail: `NOT EXERCISED (allowed): ${what}; ${verdict.detail}` };
  return fail(`NOT EXERCISED: ${what}; choose the call with --tool NAME and --args JSON, or pass --allow-unexercised`);
}

/** Run every probe against the extension in `dir` (optionally launched as `command`); what it wrote is printed with its controls made visible. */
export async function conformance(dir: string, command: string[] | undefined, printLine: (line: string) => void, options: ConformanceOptions = {}): Promise<number> {
  const print = (line: string) => printLine(escapeControls(line));
  const manifest = loadManifest(resolve(dir));
  const hostOptions: TestHostOptions = { requestTimeoutMs: 10_000 };
  // A path given on the command line is the user's (relative to where they are); a bare name is looked up on PATH, as octet does.
  if (command && command.length > 0) hostOptions.entrypoint = { command: command[0]!.includes("/") ? resolve(command[0]!) : command[0]!, args: command.slice(1) };
  const start = () => TestHost.start(resolve(dir), hostOptions);
  const chosen = await chooseCall({ manifest, start }, options);
  const subject: Subject = { manifest, start, call: chosen?.call };
  print(`octet-extension conformance: ${manifest.name} (API ${manifest.api_version}), ${command?.length ? command.join(" ") : `entrypoint ${manifest.entrypoint.command}`}`);
  print(chosen ? `calls: ${chosen.call.tool} ${shorten(JSON.stringify(chosen.call.args))} (${chosen.how})` : "calls: none (no tool to call)");
  const results: ProbeResult[] = [];
  let calling = 0;
  let exercised = 0;
  const v03 = manifest.api_version === "0.3";
  for (const probe of PROBES.filter((p) => v03 || !p.only03)) {
    const log = new CallLog();
    let verdict = await (v03 && probe.run03 ? probe.run03(subject, log) : probe.run(subject, log));
    if (probe.calls && verdict.verdict !== "SKIP" && subject.call) {
      // Exercised only when at least one of its calls reached the handler (a reply that is not a refusal).
      calling++;
      if (log.unexercised) verdict = unexercised(verdict, log, options.allowUnexercised === true);
      else exercised++;
    }
    const result = { name: (v03 && probe.name03) || probe.name, ...verdict };
    results.push(result);
    print(`${result.verdict.padEnd(5)} ${result.name.padEnd(22)} ${result.detail}`);
  }
  const failed = results.filter((r) => r.verdict === "FAIL").length;
  const skipped = results.filter((r) => r.verdict === "SKIP").length;
  const reached = subject.call ? `; ${exercised}/${calling} probes that call ${subject.call.tool} exercised its handler` : "; no tool to call";
  print(`${results.length} checks: ${results.length - failed - skipped} passed, ${failed} failed, ${skipped} skipped${reached}`);
  return failed > 0 ? 1 : 0;
}
