/**
 * Refusal texts in the author's terms (docs/api-0.4.md "Refusal texts"): the
 * `ext.…` call, what enables it (manifest key, feature, supportedFeatures) and
 * the API version in use, process level on API 0.1, 0.2 and 0.4. Wire codes
 * are unchanged; `unknown tool: <name>` stays as the spec requires.
 * Fixtures: test/fixtures/refusals/ (one tool per refused call), dispatch, menus.
 */
import { describe, expect, test } from "bun:test";
import { Extension } from "octet-extension";
import type { TestHost } from "octet-extension/testing";
import { startHost } from "../helpers.ts";

const fixture = (path: string) => new URL(`../fixtures/${path}`, import.meta.url).pathname;
const SET_04 = 'set api_version = "0.4" in manifest.toml';
const feature = (call: string, name: string, api: string, reason: string) => ({ code: -32601, message: `${call} needs the ${name} feature, which was not negotiated (API ${api}): ${reason}` });
const needsApi = (call: string, needed: string, api: string, verb = "negotiated") => ({ code: -32601, message: `${call} needs API ${needed}; this extension ${verb} API ${api}: ${SET_04}` });
const notDeclared = (call: string, key: string) => ({ code: -32601, message: `${call} needs ${key} = true under [contributes] in manifest.toml` });
const NOT_OFFERED = "the host did not offer it";
const narrowed = (name: string) => `new Extension({ supportedFeatures }) leaves it out; add "${name}" there`;

/** The refusal each tool of the refusals fixture reports, or "not refused". */
async function outcomes(host: TestHost, names: string[]): Promise<Record<string, unknown>> {
  const seen: Record<string, unknown> = {};
  for (const name of names) {
    const result = (await host.callTool(name)) as { content: { text: string }[] | string };
    const text = typeof result.content === "string" ? result.content : result.content[0]!.text;
    seen[name] = text === "not refused" ? text : JSON.parse(text);
  }
  return seen;
}

async function refusals(variant: string, expected: Record<string, unknown>): Promise<void> {
  const host = await startHost(fixture(`refusals/refusals-${variant}`));
  await host.initialize();
  expect(await outcomes(host, Object.keys(expected))).toEqual(expected);
  expect(await host.shutdown()).toBe(0);
  expect(host.violations).toEqual([]);
}

describe("feature refusals name the call, the feature, why, and the API in use", () => {
  test("API 0.1: every feature call says API 0.1 has none; 0.2-only helpers say which API they need", async () => {
    const none = `API 0.1 has no features; ${SET_04}`;
    await refusals("v01", {
      progress: feature("ext.progress()", "request_progress", "0.1", none),
      decoration: feature("ext.progressDecoration()", "request_progress", "0.1", none),
      secret: feature("ext.secrets.get()", "secrets", "0.1", none),
      artifact: feature("ext.artifacts.publish()", "artifacts", "0.1", none),
      policy: feature("ext.policy.evaluate()", "policy_intents", "0.1", none),
      agents: feature("ext.agents.list()", "agent_sessions", "0.1", none),
      register: feature("ext.tools.register()", "dynamic_tools", "0.1", none),
      compose: feature("ext.composer.get()", "composer", "0.1", none),
      export: feature("ext.resources.export()", "resource_refs_v1", "0.1", none),
      input: needsApi("ext.user.input()", "0.2 or 0.4", "0.1", "speaks"),
      present: needsApi("ext.presentation.publish()", "0.2 or 0.4", "0.1", "speaks"),
    });
  });

  test("API 0.2: a 0.4 feature says so; one the host did not offer says that (with how octet offers it where that is known)", async () => {
    const only04 = `it is an API 0.4 feature; ${SET_04}`;
    await refusals("v02", {
      decoration: feature("ext.progressDecoration()", "progress_decoration", "0.2", NOT_OFFERED),
      partial: needsApi('ext.progress({ type: "partial_result" })', "0.4", "0.2"),
      secret: feature("ext.secrets.get()", "secrets", "0.2", `${NOT_OFFERED}; octet offers it with a secret broker when [capabilities].secrets in manifest.toml names secrets`),
      agents: feature("ext.agents.list()", "agent_sessions", "0.2", `${NOT_OFFERED}; octet offers it only with a child-session service`),
      compose: feature("ext.composer.get()", "composer", "0.2", only04),
      idle: feature("ext.session.waitForIdle()", "session_control_v1", "0.2", only04),
      export: feature("ext.resources.export()", "resource_refs_v1", "0.2", only04),
      blob: feature("ext.bulk.publish()", "bulk_objects_v1", "0.2", only04),
      progress: "not refused",
      input: "not refused",
    });
  });

  test("API 0.4: not offered, offered but unused (resource refs without a type), and what works", async () => {
    await refusals("v04", {
      secret: feature("ext.secrets.get()", "secrets", "0.4", `${NOT_OFFERED}; octet offers it with a secret broker when [capabilities].secrets in manifest.toml names secrets`),
      idle: feature("ext.session.waitForIdle()", "session_control_v1", "0.4", `${NOT_OFFERED}; octet offers it only with a session lifecycle service`),
      export: feature("ext.resources.export()", "resource_refs_v1", "0.4", "it is selected only when a type is registered with ext.resourceType() before ext.run()"),
      blob: feature("ext.bulk.publish()", "bulk_objects_v1", "0.4", `${NOT_OFFERED}; octet offers it only with bulk storage configured`),
      decoration: "not refused",
      partial: "not refused",
      compose: "not refused",
    });
  });

  test("API 0.4 with supportedFeatures leaving features out: says to add them there; not offered still wins", async () => {
    await refusals("v04-narrow", {
      progress: feature("ext.progress()", "request_progress", "0.4", narrowed("request_progress")),
      decoration: feature("ext.progressDecoration()", "request_progress", "0.4", narrowed("request_progress")),
      artifact: feature("ext.artifacts.publish()", "artifacts", "0.4", narrowed("artifacts")),
      policy: feature("ext.policy.evaluate()", "policy_intents", "0.4", narrowed("policy_intents")),
      register: feature("ext.tools.register()", "dynamic_tools", "0.4", narrowed("dynamic_tools")),
      compose: feature("ext.composer.get()", "composer", "0.4", narrowed("composer")),
      secret: feature("ext.secrets.get()", "secrets", "0.4", `${NOT_OFFERED}; octet offers it with a secret broker when [capabilities].secrets in manifest.toml names secrets`),
    });
  });

  test("undeclared contributions name the manifest key to set", async () => {
    for (const variant of ["v01", "v02", "v04"]) {
      await refusals(variant, {
        notify: notDeclared("ext.user.notify()", "notifications"),
        confirm: notDeclared("ext.user.confirm()", "confirmations"),
        context: notDeclared("ext.contribute.context()", "context"),
        ...(variant === "v01" ? {} : { present: notDeclared("ext.presentation.publish()", "presentation") }),
      });
    }
  });

  test("a deprecated flat name is refused in its grouped name's words (ext.listAgents() -> ext.agents.list())", async () => {
    await refusals("v01", {
      agents_alias: feature("ext.agents.list()", "agent_sessions", "0.1", `API 0.1 has no features; ${SET_04}`),
      input_alias: needsApi("ext.user.input()", "0.2 or 0.4", "0.1", "speaks"),
      notify_alias: notDeclared("ext.user.notify()", "notifications"),
    });
    await refusals("v02", {
      agents_alias: feature("ext.agents.list()", "agent_sessions", "0.2", `${NOT_OFFERED}; octet offers it only with a child-session service`),
      input_alias: "not refused",
      notify_alias: notDeclared("ext.user.notify()", "notifications"),
    });
  });
});

describe("host requests without a name, and the version check, say what is wrong", () => {
  for (const [api, dir] of [
    ["0.1", "dispatch/dispatch-v01"],
    ["0.2", "dispatch/dispatch-v02"],
    ["0.4", "dispatch/dispatch-v04"],
  ]) {
    test(`API ${api}: tool/call and command/execute without a string name (-32601); an unknown name keeps "unknown tool: <name>"`, async () => {
      const host = await startHost(fixture(dir!));
      await host.initialize();
      const context = host.executionContext();
      expect((await host.request("tool/call", { arguments: {}, context })).error).toEqual({ code: -32601, message: "tool/call params.name is missing; it must name a registered tool" });
      expect((await host.request("tool/call", { name: 42, arguments: {}, context })).error).toEqual({ code: -32601, message: "tool/call params.name must be a string naming a registered tool, not 42" });
      expect((await host.request("tool/call", { name: "nope", arguments: {}, context })).error).toEqual({ code: -32601, message: "unknown tool: nope" });
      expect((await host.request("command/execute", { arguments: [], context })).error).toEqual({ code: -32601, message: "command/execute params.name is missing; it must name a registered command" });
      expect((await host.request("command/execute", { name: true, arguments: [], context })).error).toEqual({ code: -32601, message: "command/execute params.name must be a string naming a registered command, not true" });
      expect(await host.shutdown()).toBe(0);
    });
  }

  test("shortcut/execute without a name (-32601)", async () => {
    const host = await startHost(fixture("menus/menus-v04"));
    await host.initialize();
    expect((await host.request("shortcut/execute", { context: host.executionContext() })).error).toEqual({ code: -32601, message: "shortcut/execute params.name is missing; it must name a registered shortcut" });
    expect(await host.shutdown()).toBe(0);
  });

  test("menu/collect with contributes.menu but no menu handler names ext.menu (-32601)", async () => {
    const host = await startHost(fixture("refusals/refusals-v04"));
    const base = host.initializeParams();
    await host.initialize({ ...base, contributes: { ...(base.contributes as Record<string, unknown>), menu: true } });
    expect((await host.request("menu/collect", { context: host.executionContext() })).error).toEqual({
      code: -32601,
      message: "menu/collect: contributes.menu is true but no menu handler is registered; register one with ext.menu(handler) before ext.run()",
    });
    expect(await host.shutdown()).toBe(0);
  });

  test("initialize for another API version, or none: -32000 naming both versions, without Python reprs", async () => {
    const host = await startHost(fixture("refusals/refusals-v04"));
    const base = host.initializeParams();
    const where = "(new Extension({ apiVersion }) or OCTET_EXTENSION_API_VERSION)";
    expect((await host.request("initialize", { ...base, api_version: "0.2" })).error).toEqual({
      code: -32000,
      message: `unsupported API version: the host asked for API 0.2, this extension speaks API 0.4 ${where}`,
    });
    const { api_version: _dropped, ...missing } = base;
    expect((await host.request("initialize", missing)).error).toEqual({ code: -32000, message: `unsupported API version: the host sent no api_version, this extension speaks API 0.4 ${where}` });
    await host.initialize();
    expect(await host.shutdown()).toBe(0);
  });
});

describe("author-time errors name the option or key and the API in use", () => {
  test("registration that needs another API version", () => {
    const ext = (apiVersion: "0.1" | "0.2") => new Extension({ apiVersion, logOutput: () => {} });
    expect(() => ext("0.1").tool({ name: "t", description: "d", outputSchema: { type: "object" } }, () => "x")).toThrow(`tool \`t\`: outputSchema needs API 0.2 or 0.4; this extension speaks API 0.1: ${SET_04}`);
    expect(() => ext("0.2").tool({ name: "t", description: "d", promptSnippet: "s" }, () => "x")).toThrow(`tool \`t\`: prompt metadata (promptSnippet, promptGuidelines) needs API 0.4; this extension speaks API 0.2: ${SET_04}`);
    expect(() => ext("0.1").menu(() => ({ items: [] }))).toThrow(`ext.menu() needs API 0.2 or 0.4; this extension speaks API 0.1: ${SET_04}`);
  });

  test("supportedFeatures naming a feature this runtime does not implement", () => {
    expect(() => new Extension({ apiVersion: "0.4", supportedFeatures: ["request_progress", "telepathy"], logOutput: () => {} })).toThrow(
      'supportedFeatures names features this runtime does not implement: "telepathy"',
    );
  });
});
