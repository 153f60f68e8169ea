/**
 * The runtime's structure as issue 26 left it: protocol facts in one module
 * that imports nothing above it, no re-export shims, distinct file names,
 * each wire-level text written once, `Feature` typed, and `Connection`'s
 * public surface only what `serve` and `Extension` use.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { Connection } from "../../src/runtime/connection.ts";
import type { HostSession } from "../../src/runtime/host-session.ts";

const SRC = new URL("../../src/", import.meta.url).pathname;
/** The runtime package's own code (the test host and API 0.3's module set are outside this check). */
const RUNTIME = ["runtime", "wire"];

function files(dir: string, skip: string[] = []): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (!skip.includes(name)) out.push(...files(path, skip));
    } else if (name.endsWith(".ts")) out.push(path);
  }
  return out;
}

const runtimeFiles = () => [...RUNTIME.flatMap((dir) => files(join(SRC, dir), ["v03"])), ...files(SRC, ["runtime", "wire", "testing"]).filter((p) => !p.includes("/", SRC.length))];
const importsOf = (path: string) => [...readFileSync(path, "utf8").matchAll(/^(?:import|export)[^;]*? from "([^"]+)";/gms)].map((m) => m[1]!);

describe("runtime layout (issue 26)", () => {
  test("src/protocol.ts imports nothing above it: only the output-schema subset, which imports only the check kit", () => {
    expect(importsOf(join(SRC, "protocol.ts"))).toEqual(["./output-schema.ts"]);
    expect(importsOf(join(SRC, "output-schema.ts"))).toEqual(["./check.ts"]);
  });

  test("no module of the runtime only re-exports another's names (the package entries excepted)", () => {
    const entries = ["index.ts", "protocol.ts", "validation.ts", "seal.ts"].map((name) => join(SRC, name));
    const shims = runtimeFiles()
      .filter((path) => !entries.includes(path))
      .filter((path) => /^export (?:type )?\{[^}]*\} from "/m.test(readFileSync(path, "utf8")) || /^export \* from "/m.test(readFileSync(path, "utf8")));
    expect(shims.map((p) => p.slice(SRC.length))).toEqual([]);
  });

  test("file names are distinct in the whole src/ tree, API 0.3's v03/ and the test host included (index.ts entry points aside)", () => {
    const paths = files(SRC).filter((p) => basename(p) !== "index.ts");
    const names = paths.map((p) => basename(p));
    expect(paths.filter((p) => names.filter((name) => name === basename(p)).length > 1).map((p) => p.slice(SRC.length)).sort()).toEqual([]);
  });

  test("each wire-level refusal text is written once, in src/protocol.ts", () => {
    const sources = runtimeFiles().map((path) => [path.slice(SRC.length), readFileSync(path, "utf8")] as const);
    for (const text of ["initialize must be the first request", "extension is draining", "duplicate active request id", "operation-scoped host request requires parent_request_id"]) {
      expect({ text, in: sources.filter(([, source]) => source.includes(`"${text}"`)).map(([path]) => path) }).toEqual({ text, in: ["protocol.ts"] });
    }
  });

  test("the legacy wire's limits and feature needs exist once: RESOURCE_LIMITS, FEATURE_NEEDS and the frame limit are not restated", () => {
    // API 0.3's canonical wire has its own facts (src/runtime/v03/canonical-*.ts).
    const legacy = [...files(SRC, ["v03"]), ...files(new URL("../../codegen/", import.meta.url).pathname)].filter((path) => !basename(path).startsWith("canonical-"));
    const restating = legacy.filter((path) => /max_records:\s*256|=\s*1_?048_?576\b|approvals:\s*"policy_intents"/.test(readFileSync(path, "utf8")));
    expect(restating.map((p) => p.slice(SRC.length))).toEqual(["protocol.ts"]);
  });

  test("Feature is a string-literal union and Connection's public surface is agreed, host, receive, endOfInput and adoptInitialized (checked by tsc)", () => {
    const misspelt = (session: HostSession) => {
      // @ts-expect-error "request_progres" is not a Feature
      session.has("request_progres");
    };
    const surface: Record<keyof Connection, true> = { agreed: true, host: true, receive: true, endOfInput: true, adoptInitialized: true };
    expect(typeof misspelt).toBe("function");
    expect(Object.keys(surface).sort()).toEqual(["adoptInitialized", "agreed", "endOfInput", "host", "receive"]);
  });
});
