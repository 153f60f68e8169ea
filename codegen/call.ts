import { resolve } from "node:path";
import { redactSecrets, TestHost } from "octet-extension/testing";
import { escapeControls } from "./terminal-text.ts";

/**
 * `octet-extension call TOOL [JSON]` / `call /COMMAND [ARGS...]`: start the
 * extension as octet would, initialize it, make one call and print the
 * transcript. Exit status 1 when the call failed, the tool answered
 * `is_error: true`, or octet would have killed the extension; 2 for bad usage.
 * What the extension wrote is printed with its controls made visible and
 * without the secrets it was given.
 */
export async function call(dir: string, args: string[], printLine: (line: string) => void, record?: string): Promise<number> {
  const print = (line: string) => printLine(escapeControls(line));
  const target = args[0];
  if (!target) {
    print("usage: octet-extension call TOOL [JSON] | call /COMMAND [ARGS...]");
    return 2;
  }
  let parsed: unknown = {};
  if (!target.startsWith("/") && args[1] !== undefined) {
    try {
      parsed = JSON.parse(args[1]);
    } catch (error) {
      print(`error: the arguments are not JSON (${(error as Error).message}): quote them, e.g. '{"city":"Oslo"}'`);
      return 2;
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      print(`error: tool arguments must be a JSON object, not ${Array.isArray(parsed) ? "an array" : parsed === null ? "null" : typeof parsed}: e.g. '{"city":"Oslo"}'`);
      return 2;
    }
  }
  const host = await TestHost.start(resolve(dir), { workspace: process.cwd() });
  let failed = false;
  try {
    await host.initialize();
    if (target.startsWith("/")) {
      await host.executeCommand(target.slice(1), args.slice(1));
    } else {
      const result = await host.callTool(target, parsed);
      if (typeof result === "object" && result !== null && (result as { is_error?: unknown }).is_error === true) {
        failed = true;
        print(`! the tool answered is_error: true`);
      }
    }
    await host.shutdown();
  } catch (error) {
    failed = true;
    print(`! ${(error as Error).message}`);
  } finally {
    host.kill();
    // A recorded conversation is a golden test: `octet-extension replay FILE`.
    if (record !== undefined) {
      await host.exited;
      host.saveTranscript(record);
      print(`recorded ${host.transcript.length} frames to ${record}`);
    }
  }
  for (const entry of redactSecrets(host.transcript)) print(`${entry.from === "host" ? "→" : "←"} ${entry.text}`);
  const dropped = host.stderrDropped.lines;
  if (dropped > 0) print(`  stderr (${dropped} earlier lines not kept: the test host keeps the latest 4 Mi characters)`);
  for (const line of host.stderr.filter((l) => l.trim() !== "")) print(`  stderr ${line}`);
  for (const violation of host.violations) print(`! octet would kill the extension: ${violation}`);
  return failed || host.violations.length > 0 ? 1 : 0;
}
