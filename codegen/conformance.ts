/**
 * `octet-extension conformance [--dir DIR] [-- CMD ARGS…]`: a black-box check
 * any extension can run, whatever its language. Each probe starts the
 * extension afresh as octet does (staged entry point, cleared environment,
 * the strict test host's rules) and reports PASS, FAIL or SKIP with the
 * reason; the exit status is 1 when any probe failed (docs/tools.md).
 */
import { resolve } from "node:path";
import { type HostManifest, loadManifest, TestHost, type TestHostOptions } from "octet-extension/testing";
import { escapeControls } from "./terminal-text.ts";

type Obj = Record<string, unknown>;

/** One probe's verdict. */
export interface ProbeResult {
  name: string;
  verdict: "PASS" | "FAIL" | "SKIP";
  detail: string;
}

/** What the probes need: the manifest, and how to start a fresh process. */
interface Subject {
  manifest: HostManifest;
  start(): Promise<TestHost>;
}

/** octet's bounds the probes hold the extension to. */
const CANCEL_GRACE_MS = 2_000;
const EXIT_BOUND_MS = 4_000;
const IN_FLIGHT = 64;
const FRAME_LIMIT = 1_048_576;

type Probe = { name: string; run(subject: Subject): Promise<Omit<ProbeResult, "name">> };

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
  return (reply.error as Obj | undefined)?.code === -32601;
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
  },
  {
    name: "oversize frame",
    run: (subject) =>
      withHost(subject, async (host) => {
        await host.initialize();
        host.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: 900, method: "octet-conformance/big", params: { pad: "x".repeat(FRAME_LIMIT) } }));
        const refusal = await host.waitForFrame((f) => "error" in f && (f.id === null || f.id === 900), 5_000).catch(() => undefined);
        if (!refusal || refusal.id !== null || (refusal.error as Obj).code !== -32700) return fail(`a line over 1 MiB must be answered -32700 with id null, got ${refusal ? JSON.stringify(refusal) : "nothing"}`);
        return (await stillServing(host)) ? pass("a line over 1 MiB is answered -32700 with id null, then keeps serving") : fail("not serving after an oversize line");
      }),
  },
  {
    name: "invalid UTF-8",
    run: (subject) =>
      withHost(subject, async (host) => {
        await host.initialize();
        host.sendRaw(new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]), { newline: false });
        const parseError = await host.waitForFrame((f) => "error" in f && f.id === null, 3_000).catch(() => undefined);
        if (!parseError || (parseError.error as Obj).code !== -32700) return fail("no -32700 with id null for a line of invalid UTF-8");
        return (await stillServing(host)) ? pass("-32700 with id null, then keeps serving") : fail("not serving after invalid UTF-8");
      }),
  },
  {
    name: "stdout purity",
    run: (subject) =>
      withHost(subject, async (host) => {
        await host.initialize();
        const tool = subject.manifest.contributes.tools[0];
        if (tool) await host.request("tool/call", { name: tool, arguments: {}, context: host.executionContext() });
        await host.shutdown();
        return pass("every stdout line was a JSON-RPC 2.0 frame octet accepts");
      }),
  },
  {
    name: "cancellation",
    run: (subject) => {
      const tool = subject.manifest.contributes.tools[0];
      if (subject.manifest.api_version === "0.1") return Promise.resolve(skip("API 0.1 has no cancellation"));
      if (!tool) return Promise.resolve(skip("no tool to call"));
      return withHost(subject, async (host) => {
        await host.initialize();
        const id = host.peekNextId();
        const reply = host.request("tool/call", { name: tool, arguments: {}, context: host.executionContext({ execution_scope: "conformance" }) });
        host.cancel(id, "conformance check");
        const started = performance.now();
        const answered = await Promise.race([reply, Bun.sleep(CANCEL_GRACE_MS).then(() => undefined)]);
        if (!answered) return fail(`no reply within octet's ${CANCEL_GRACE_MS} ms grace after $/cancelRequest (octet ends the process)`);
        return pass(`answered ${Math.round(performance.now() - started)} ms after the cancel`);
      });
    },
  },
  {
    name: `${IN_FLIGHT} in flight`,
    run: (subject) => {
      const tool = subject.manifest.contributes.tools[0];
      if (!tool) return Promise.resolve(skip("no tool to call"));
      return withHost(subject, async (host) => {
        await host.initialize();
        const replies = await Promise.all(Array.from({ length: IN_FLIGHT }, () => host.request("tool/call", { name: tool, arguments: {}, context: host.executionContext() })));
        const refused = replies.filter((r) => (r.error as Obj | undefined)?.code === -32000 || /queue|draining/i.test(String((r.error as Obj | undefined)?.message)));
        return refused.length === 0 ? pass(`${IN_FLIGHT} concurrent calls all admitted and answered`) : fail(`${refused.length} of ${IN_FLIGHT} refused: ${JSON.stringify(refused[0]!.error)}`);
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
        return code === 0 && ms <= EXIT_BOUND_MS ? pass(`{} then exit 0 in ${ms} ms`) : fail(`exit ${code} after ${ms} ms`);
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

/** Run every probe against the extension in `dir` (optionally launched as `command`); what it wrote is printed with its controls made visible. */
export async function conformance(dir: string, command: string[] | undefined, printLine: (line: string) => void): Promise<number> {
  const print = (line: string) => printLine(escapeControls(line));
  const manifest = loadManifest(resolve(dir));
  const options: TestHostOptions = { requestTimeoutMs: 10_000 };
  // A path given on the command line is the user's (relative to where they are); a bare name is looked up on PATH, as octet does.
  if (command && command.length > 0) options.entrypoint = { command: command[0]!.includes("/") ? resolve(command[0]!) : command[0]!, args: command.slice(1) };
  const subject: Subject = { manifest, start: () => TestHost.start(resolve(dir), options) };
  print(`octet-extension conformance: ${manifest.name} (API ${manifest.api_version}), ${command?.length ? command.join(" ") : `entrypoint ${manifest.entrypoint.command}`}`);
  const results: ProbeResult[] = [];
  for (const probe of PROBES) {
    const result = { name: probe.name, ...(await probe.run(subject)) };
    results.push(result);
    print(`${result.verdict.padEnd(5)} ${result.name.padEnd(22)} ${result.detail}`);
  }
  const failed = results.filter((r) => r.verdict === "FAIL").length;
  const skipped = results.filter((r) => r.verdict === "SKIP").length;
  print(`${results.length} checks: ${results.length - failed - skipped} passed, ${failed} failed, ${skipped} skipped`);
  return failed > 0 ? 1 : 0;
}
