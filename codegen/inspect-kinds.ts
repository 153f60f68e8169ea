/**
 * The inspector's lines for the kinds besides tools and commands
 * (docs/kinds.md): `status [SURFACE]`, `context [PROMPT]`, `hook NAME [JSON]`,
 * `render TOOL [JSON]`, `shortcut NAME`, `menu`, each the request octet sends.
 */
import { isObject, type JsonRecord } from "octet-extension/validation";
import type { HostManifest, TestHost } from "octet-extension/testing";

export const KIND_HELP = `  status [SURFACE]        collect a status item (default: the first of contributes.ui)
  context [PROMPT]        collect the context octet adds to a prompt
  hook NAME [JSON]        run a declared hook with a payload
  render TOOL [JSON]      run a tool renderer: {"arguments":{},"output":"…","is_error":false}
  shortcut NAME           press a declared shortcut
  menu                    collect the options menu`;

/** What Tab completes: each line with the names the manifest declares. */
export function kindWords(manifest: HostManifest): string[] {
  const c = manifest.contributes;
  return [
    ...c.ui.map((surface) => `status ${surface}`),
    ...(c.context ? ["context "] : []),
    ...c.hooks.map((hook) => `hook ${hook} `),
    ...c.tool_renderers.map((name) => `render ${name} `),
    ...c.shortcuts.map((shortcut) => `shortcut ${shortcut.name}`),
    ...(c.menu ? ["menu"] : []),
  ];
}

/** The request for `line`, a one-line error, or undefined when the line names no kind. */
export function kindRequest(line: string, host: TestHost): { method: string; params: JsonRecord } | { error: string } | undefined {
  const [word = "", ...words] = line.split(/\s+/);
  const rest = line.slice(word.length).trim();
  const context = host.executionContext();
  const name = words[0] ?? "";
  const json = (what: string): { value: JsonRecord } | { error: string } => {
    const text = rest.slice(name.length).trim();
    if (text === "") return { value: {} };
    try {
      const value = JSON.parse(text) as unknown;
      if (isObject(value)) return { value };
    } catch {
      // refused below
    }
    return { error: `${what} ${name}: give a JSON object, e.g. ${what === "hook" ? '{"prompt":"hi"}' : '{"arguments":{},"output":"done"}'}` };
  };
  switch (word) {
    case "status":
      return { method: "status/collect", params: { surface: rest || (host.manifest.contributes.ui[0] ?? "status"), context } };
    case "context":
      return { method: "context/collect", params: { prompt: rest === "" ? null : rest, context } };
    case "hook": {
      if (!name) return { error: "hook NAME [JSON]: name a declared hook" };
      const payload = json("hook");
      return "error" in payload ? payload : { method: "hook/run", params: { hook: name, payload: payload.value, context } };
    }
    case "render": {
      if (!name) return { error: "render TOOL [JSON]: name a declared tool renderer" };
      const given = json("render");
      if ("error" in given) return given;
      const { arguments: args = {}, output = null, is_error: isError = false } = given.value;
      return { method: "tool/render", params: { name, arguments: args, output, is_error: isError, context } };
    }
    case "shortcut":
      return name ? { method: "shortcut/execute", params: { name, context } } : { error: "shortcut NAME: name a declared shortcut" };
    case "menu":
      return rest === "" ? { method: "menu/collect", params: { context } } : undefined;
    default:
      return undefined;
  }
}
