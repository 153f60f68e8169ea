import { afterEveryTest } from "../setup.ts";
import { readFileSync } from "node:fs";
import { TestHost, type TestHostOptions } from "octet-extension/testing";

export const V01 = new URL("../fixtures/conformance/v01/octet-conformance-fixture", import.meta.url).pathname;
export const V02 = new URL("../fixtures/conformance/v02/octet-conformance-fixture", import.meta.url).pathname;
/** The same fixture declaring API 0.4: the 0.2 behaviour, negotiated as 0.4 (docs/api-0.4.md). */
export const V04 = new URL("../fixtures/conformance/v04/octet-conformance-fixture", import.meta.url).pathname;
/** The feature-negotiated versions the 0.2 scenarios run on. */
export const NEGOTIATED: [string, string][] = [
  ["0.2", V02],
  ["0.4", V04],
];
const SPEC = new URL("../fixtures/conformance/spec/", import.meta.url).pathname;

/** The machine-readable pattern files shipped with the fixture spec. */
export function specJson(name: string): any {
  return JSON.parse(readFileSync(SPEC + name, "utf8"));
}

/** Every offered optional feature of the octet 0.8.0 offer plus the conditional ones. */
export const FULL_OFFER = {
  optional: ["request_progress", "artifacts", "lifecycle_events", "policy_intents", "dynamic_tools", "agent_sessions", "approvals", "secrets", "progress_decoration"],
};

const started: TestHost[] = [];
afterEveryTest(() => {
  for (const host of started.splice(0)) host.kill();
});

export async function fixture(dir = V02, options: TestHostOptions = {}, initialize = true): Promise<TestHost> {
  const host = await TestHost.start(dir, { requestTimeoutMs: 10_000, ...options });
  started.push(host);
  if (initialize) await host.initialize();
  return host;
}

/** API 0.2 `TEXT(t)` content. */
export const text = (t: string) => ({ content: [{ type: "text", text: t }], is_error: false, metadata: {} });
/** API 0.2 `ERROR(t)` content. */
export const error = (t: string) => ({ content: [{ type: "text", text: t }], is_error: true, metadata: {} });
