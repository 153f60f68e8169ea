import { TestHost, type TestHostOptions } from "octet-extension/testing";

/** The purpose-built API 0.2 fixture (test/fixtures/api02/fixture.ts). */
export const FIXTURE = new URL("../fixtures/api02/octet-api02-fixture", import.meta.url).pathname;

/** octet's default optional offer (docs/protocol-0.2.md §3.1). */
export const DEFAULT_OPTIONAL = ["request_progress", "artifacts", "lifecycle_events", "policy_intents", "dynamic_tools"];

type Obj = Record<string, unknown>;

const started: TestHost[] = [];

/** Launch (and by default initialize) the fixture under the strict test host. */
export async function launch(options: TestHostOptions = {}, initialize = true): Promise<TestHost> {
  const host = await TestHost.start(FIXTURE, { requestTimeoutMs: 15_000, ...options });
  started.push(host);
  if (initialize) await host.initialize();
  return host;
}

/** Kill every fixture this file started (call from afterEach/afterAll). */
export function killAll(): void {
  for (const host of started.splice(0)) host.kill();
}

/** Send `tool/call` as octet does for a model tool (owner-bound context) and return the raw reply frame. */
export function callRaw(host: TestHost, name: string, args: Obj = {}): Promise<Obj> {
  const context = host.executionContext({ execution_scope: `scope-${host.peekNextId()}`, resource_owner: host.resourceOwner });
  return host.request("tool/call", { name, arguments: args, context });
}

/** A raw `tool/call` line for `sendRaw` (pipelined requests with chosen ids). */
export const callLine = (id: number | string, name: string, args: Obj = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tool/call", params: { name, arguments: args, context: {} } });

/** API 0.2 single-text result. */
export const text = (t: string) => ({ content: [{ type: "text", text: t }], is_error: false, metadata: {} });

/** The text of a successful single-text result (throws otherwise). */
export function resultText(reply: Obj): string {
  const result = reply.result as { content: { text: string }[]; is_error: boolean } | undefined;
  if (!result || result.is_error) throw new Error(`expected a successful result, got ${JSON.stringify(reply)}`);
  return result.content[0]!.text;
}

/** Parse `prefix:<json>` text results of the fixture. */
export function payload<T = any>(reply: Obj, prefix: string): T {
  const body = resultText(reply);
  if (!body.startsWith(`${prefix}:`)) throw new Error(`expected ${prefix}:…, got ${body}`);
  return JSON.parse(body.slice(prefix.length + 1)) as T;
}

/** Extension→host requests (method and id) of a method family. */
export const requestsOf = (host: TestHost, prefix: string) =>
  host.extensionFrames().filter((f) => typeof f.method === "string" && (f.method as string).startsWith(prefix) && "id" in f);

/** Poll until `predicate` holds (or fail after `timeoutMs`). */
export async function until(predicate: () => boolean, timeoutMs = 5_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}

/** Structured stderr records with this message. */
export const logsNamed = (host: TestHost, message: string) => host.logs().filter((l) => l.message === message);
