/**
 * An extension's text never drives the author's terminal: `call`,
 * `conformance` and `inspect` against test/fixtures/hostile-output, which puts
 * a window-title change, a clipboard write, a screen clear, a CR that
 * overwrites the line with a fake verdict, a C1 CSI and DEL into every text
 * the tools print (stdout, stderr, progress, descriptions, prompts). The
 * controls must reach the terminal only in their visible `\xHH` form; the
 * same for `replay` (a transcript is input too), `dev --call` and the error
 * line quoting a manifest value.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { temporaryDirectory } from "octet-extension/testing";
import { project, removeProjects } from "../codegen/helpers.ts";
import { inspectInTerminal } from "./terminal.ts";

afterAll(removeProjects);

const REPO = new URL("../../", import.meta.url).pathname;
const CLI = `${REPO}codegen/cli.ts`;
const FIXTURE = "test/fixtures/hostile-output";

/** The fixture's HOSTILE text with every control made visible. */
const VISIBLE = "\\x1b]0;PWNED-TITLE\\x07\\x1b]52;c;UFdORUQ=\\x07\\x1b[2J\\x0dall tests passed \\x9b31mC1\\x7fDEL";
/** HOSTILE inside a JSON frame the extension wrote: JSON escapes C0 itself, C1 and DEL are made visible. */
const IN_JSON = "\\u001b]0;PWNED-TITLE\\u0007\\u001b]52;c;UFdORUQ=\\u0007\\u001b[2J\\rall tests passed \\x9b31mC1\\x7fDEL";
/** The fixture's HOSTILE text as written. */
const HOSTILE = "\x1b]0;PWNED-TITLE\x07\x1b]52;c;UFdORUQ=\x07\x1b[2J\rall tests passed \x9b31mC1\x7fDEL";
/** Any control but tab and LF: C0, DEL, C1. */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

function run(args: string[]): { code: number; out: string; err: string } {
  const done = Bun.spawnSync([process.execPath, CLI, ...args], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
  return { code: done.exitCode ?? -1, out: done.stdout.toString(), err: done.stderr.toString() };
}

/** The first control character in `text`, with the line around it, or undefined. */
function firstControl(text: string): string | undefined {
  const at = text.search(CONTROL);
  return at === -1 ? undefined : `U+${text.charCodeAt(at).toString(16).padStart(4, "0")} in ${JSON.stringify(text.slice(Math.max(0, at - 60), at + 40))}`;
}

describe("an extension's text is printed with its controls made visible", () => {
  test.each([
    ["progress", [`"message":"progress:${IN_JSON}"`, `"text":"result:${IN_JSON}"`]],
    ["confirm", [`"prompt":"confirm:${IN_JSON}","detail":"detail:${IN_JSON}"`]],
    ["input", [`"prompt":"input:${IN_JSON}"`]],
    ["policy", [`"operation":"operation:${IN_JSON}"`]],
    ["garbage", [`← garbage:${VISIBLE}`, `! octet would kill the extension: non-JSON on stdout: garbage:${VISIBLE}`]],
    ["/spoof", [`"message":"spoofed:${IN_JSON}"`]],
  ] as [string, string[]][])("call %s", (target, shown) => {
    const { code, out, err } = run(["call", "--dir", FIXTURE, target, ...(target.startsWith("/") ? [] : ["{}"])]);
    expect(firstControl(out)).toBeUndefined();
    expect(firstControl(err)).toBeUndefined();
    // Everywhere the fixture's text shows up: descriptions, stderr lines, the violation quoting one.
    expect(out).toContain(`"description":"tool-progress:${IN_JSON}"`);
    expect(out).toContain(`"description":"command:${IN_JSON}","usage":"usage:${IN_JSON}"`);
    expect(out).toContain(`  stderr stderr:${VISIBLE}\n`);
    expect(out).toContain(`  stderr {"level":"info","message":"log:${IN_JSON}"}\n`);
    expect(out).toContain(`! octet would kill the extension: unstructured stderr line: stderr:${VISIBLE}\n`);
    for (const text of shown) expect(out).toContain(text);
    expect(code).toBe(1); // the plain stderr line breaks octet's rules
  }, 30_000);

  test("conformance", () => {
    const { code, out, err } = run(["conformance", "--dir", FIXTURE]);
    expect(firstControl(out)).toBeUndefined();
    expect(firstControl(err)).toBeUndefined();
    expect(out).toContain(`octet would kill it: unstructured stderr line: stderr:${VISIBLE}`);
    expect(code).toBe(1);
  }, 120_000);

  test("replay: a violation, and a difference quoting a transcript that holds controls", () => {
    const file = join(temporaryDirectory("hostile-replay-"), "session.json");
    expect(run(["call", "--dir", FIXTURE, "progress", "{}", "--record", file]).code).toBe(1);
    const session = JSON.parse(readFileSync(file, "utf8")) as { frames: { from: string; text: string }[] };
    const result = session.frames.findLast((f) => f.from === "extension" && f.text.includes('"text":"result:'))!;
    result.text = result.text.replace('"text":"result:', '"text":"recorded\x1b]0;FROM-FILE\x07:');
    writeFileSync(file, JSON.stringify(session));
    const { code, out, err } = run(["replay", file, "--dir", FIXTURE]);
    expect(firstControl(out)).toBeUndefined();
    expect(firstControl(err)).toBeUndefined();
    expect(out).toContain('  recorded: {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"recorded\\x1b]0;FROM-FILE\\x07:');
    expect(out).toContain(`  replayed: {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"result:${IN_JSON}"}]`);
    expect(out).toContain(`octet would kill the extension: unstructured stderr line: stderr:${VISIBLE}`);
    expect(code).toBe(1);
  }, 30_000);

  test("dev --call: the installed build's answer", () => {
    const dir = project("hostile-dev", `name = "hostile-dev"\nversion = "0.1.0"\napi_version = "0.4"\n\n[tools.shout]\ndescription = "Shout"\nparameters = { type = "object" }\n`);
    expect(run(["gen", "--dir", dir]).code).toBe(0);
    const source = join(dir, "src/extension.ts");
    writeFileSync(source, readFileSync(source, "utf8").replace(/shout: async \(args, ctx\)[^=]* => \{[\s\S]*?\n {4}\},/, `shout: () => ${JSON.stringify(`shout:${HOSTILE}`)},`));
    const into = temporaryDirectory("hostile-dev-into-");
    const { code, out, err } = run(["dev", "--dir", dir, "--into", into, "--once", "--call", "shout", "{}"]);
    expect(firstControl(out)).toBeUndefined();
    expect(firstControl(err)).toBeUndefined();
    expect(out).toContain(`[dev] call shout: {"content":[{"type":"text","text":"shout:${IN_JSON}"}]`);
    expect(code).toBe(0);
  }, 120_000);

  test("a manifest value quoted in an error line", () => {
    const dir = join(temporaryDirectory("hostile-manifest-"), "x");
    mkdirSync(dir);
    writeFileSync(join(dir, "extension.toml"), `name = "x"\nversion = "0.1.0"\napi_version = "0.2"\n\n[entrypoint]\ncommand = "x"\n\n[contributes]\ntools = ["t${HOSTILE.replace(/[^ -~]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}"]\n`);
    for (const command of [["call", "t"], ["inspect"], ["conformance"]]) {
      const { code, out, err } = run([command[0]!, "--dir", dir, ...command.slice(1)]);
      expect({ command, out: firstControl(out), err: firstControl(err) }).toEqual({ command, out: undefined, err: undefined });
      expect(err).toContain(`contributes.tools name \`t${VISIBLE}\` must match`);
      expect(code).toBe(1);
    }
  });

  test("inspect: descriptions, progress, prompts, the skeleton, stdout and stderr lines, violations", async () => {
    const t = await inspectInTerminal(FIXTURE);
    await t.waitFor("type help");
    t.keys("tools", "Enter");
    await t.waitFor("garbage: tool-garbage:");
    t.keys("commands", "Enter");
    await t.waitFor("/spoof (usage:");
    t.keys("call progress {}", "Enter");
    await t.waitFor("= {");
    t.keys("call confirm {}", "Enter");
    await t.waitFor("[y/N]");
    t.keys("n", "Enter");
    await t.waitFor('answered:{\\"confirmed\\":false}');
    t.keys("call input {}", "Enter");
    await t.waitFor("(empty: cancel)");
    t.keys("typed-answer", "Enter");
    await t.waitFor('answered:{\\"value\\":\\"typed-answer\\"}');
    t.keys("call policy {}", "Enter");
    await t.waitFor("allow, deny or ask [deny]");
    t.keys("deny", "Enter");
    await t.waitFor('answered:{\\"decision\\":\\"deny\\"}');
    t.keys("call progress", "Enter");
    const skeleton = await t.waitFor('octet> call progress {"note":"default:');
    t.keys("C-u", "/spoof", "Enter");
    await t.waitFor('"message":"spoofed:');
    t.keys("call garbage {}", "Enter");
    await t.waitFor("non-JSON on stdout: garbage:");
    t.keys("quit", "Enter");
    await t.waitFor("INSPECT-EXIT=1");

    // The sequences themselves never reach the terminal (the inspector's own prompt handling writes other escapes).
    const raw = t.raw();
    const sequences = { "OSC 0": "\x1b]0;", "OSC 52": "\x1b]52;", "CSI 2J": "\x1b[2J", BEL: "\x07", DEL: "\x7f", "C1 CSI (UTF-8)": "\xc2\x9b", "CR overwrite": "\rall tests passed" };
    const found = Object.entries(sequences).filter(([, bytes]) => raw.includes(bytes)).map(([name]) => name);
    expect({ found, title: t.title() }).toEqual({ found: [], title: expect.not.stringContaining("PWNED") });
    const screen = t.screen();
    for (const shown of [
      `!! octet would kill the extension: unstructured stderr line: stderr:${VISIBLE}`,
      `garbage: tool-garbage:${VISIBLE}`,
      `/spoof (usage:${VISIBLE}): command:${VISIBLE}`,
      `… progress:${VISIBLE}`,
      `[############............] 1/2 bar:${VISIBLE}`,
      `? confirm: confirm:${VISIBLE} (detail:${VISIBLE}) [y/N] n`,
      `? input: input:${VISIBLE} (empty: cancel) typed-answer`,
      `? policy: kind:${VISIBLE} operation:${VISIBLE} — allow, deny or ask [deny] deny`,
      `← garbage:${VISIBLE}`,
      `!! octet would kill the extension: non-JSON on stdout: garbage:${VISIBLE}`,
    ]) expect(screen).toContain(shown);
    expect(skeleton).toContain(`octet> call progress {"note":"default:${IN_JSON}"}`);
  }, 90_000);
});
