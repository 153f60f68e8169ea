/**
 * `octet-extension conformance` calls a tool with arguments its schema
 * accepts, so the probes that call it reach the handler: a generated project
 * whose first tool has required arguments (`$ref`, enum, minLength, a nested
 * object) logs every handler call to a file the test reads. `--tool` and
 * `--args` choose; a probe whose calls were all refused by the argument
 * validator is NOT EXERCISED (a failure unless `--allow-unexercised`); a tool
 * whose validator refuses everything is passed over for one it can exercise.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { compileSchema } from "../../codegen/ajv.ts";
import { removeProjects } from "../codegen/helpers.ts";
import { ADD_TODO_SCHEMA, type LoggedCall, todoProject } from "./todo-project.ts";

afterAll(removeProjects);

const REPO = new URL("../../", import.meta.url).pathname;
const CLI = `${REPO}codegen/cli.ts`;

let dir = "";
let calls: () => LoggedCall[] = () => [];

function conformance(args: string[]): { code: number; lines: string[]; stderr: string } {
  const run = Bun.spawnSync([process.execPath, CLI, "conformance", ...args], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
  return { code: run.exitCode ?? -1, lines: run.stdout.toString().trim().split("\n"), stderr: run.stderr.toString().trim() };
}

/** `name: VERDICT` for every probe line. */
const verdicts = (lines: string[]) => Object.fromEntries(lines.filter((l) => /^(PASS|FAIL|SKIP) /.test(l)).map((l) => [l.slice(6, 28).trim(), l.slice(0, 4)]));
const CALLING = ["stdout purity", "cancellation", "64 in flight"];

beforeAll(async () => {
  ({ dir, calls } = await todoProject());
});

describe("conformance on a tool with required arguments", () => {
  test("the probes call add_todo with arguments its schema accepts: every calling probe reaches the handler", () => {
    const { code, lines } = conformance(["--dir", dir]);
    const table = verdicts(lines);
    expect(Object.keys(table).length).toBe(10);
    for (const [name, verdict] of Object.entries(table)) expect({ name, verdict }).toEqual({ name, verdict: "PASS" });
    const logged = calls();
    // The trial call, stdout purity's, the cancelled one (it may be cancelled before the handler starts) and 64 in flight.
    expect(logged.length).toBeGreaterThanOrEqual(66);
    expect(new Set(logged.map((c) => c.tool))).toEqual(new Set(["add_todo"]));
    const args = logged[0]!.args as { title: string; priority: string; tags: string[]; due: Record<string, number> };
    expect(args.title.length).toBeGreaterThanOrEqual(1);
    expect(["low", "normal", "high"]).toContain(args.priority);
    expect(args.tags.length).toBeGreaterThanOrEqual(1);
    expect(Object.keys(args.due).sort()).toEqual(["day", "month", "year"]);
    expect(compileSchema(ADD_TODO_SCHEMA)(args)).toBe(true);
    expect(lines).toContain(`calls: add_todo ${JSON.stringify(args)} (generated from its parameters schema)`);
    expect(lines.at(-1)).toBe("10 checks: 10 passed, 0 failed, 0 skipped; 3/3 probes that call add_todo exercised its handler");
    expect(code).toBe(0);
  }, 90_000);

  test("--tool chooses the tool and --args its arguments", () => {
    const listed = conformance(["--dir", dir, "--tool", "list_todos"]);
    expect(listed.lines).toContain("calls: list_todos {} (generated from its parameters schema)");
    expect(listed.lines.at(-1)).toBe("10 checks: 10 passed, 0 failed, 0 skipped; 3/3 probes that call list_todos exercised its handler");
    expect(new Set(calls().map((c) => c.tool))).toEqual(new Set(["list_todos"]));
    expect(listed.code).toBe(0);

    const given = { title: "Water the plants", priority: "high", tags: ["home"], due: { year: 2030, month: 6, day: 1 } };
    const chosen = conformance(["--dir", dir, "--tool", "add_todo", "--args", JSON.stringify(given)]);
    expect(chosen.lines).toContain(`calls: add_todo ${JSON.stringify(given)} (--args)`);
    expect(chosen.lines.at(-1)).toBe("10 checks: 10 passed, 0 failed, 0 skipped; 3/3 probes that call add_todo exercised its handler");
    const logged = calls();
    expect(logged.length).toBeGreaterThanOrEqual(65);
    expect(logged.every((c) => JSON.stringify(c.args) === JSON.stringify(given))).toBe(true);
    expect(chosen.code).toBe(0);
  }, 120_000);

  test("arguments the validator refuses: the calling probes are NOT EXERCISED failures, unless --allow-unexercised", () => {
    const nearly = JSON.stringify({ title: "", priority: "low", tags: ["home"], due: { year: 2030, month: 6, day: 1 } });
    const refused = conformance(["--dir", dir, "--args", nearly]);
    const table = verdicts(refused.lines);
    for (const name of CALLING) expect({ name, verdict: table[name] }).toEqual({ name, verdict: "FAIL" });
    for (const name of Object.keys(table).filter((n) => !CALLING.includes(n))) expect({ name, verdict: table[name] }).toEqual({ name, verdict: "PASS" });
    const line = refused.lines.find((l) => l.startsWith("FAIL  64 in flight"))!;
    expect(line).toContain("NOT EXERCISED: all 64 calls were refused by argument validation before the handler ran");
    expect(line).toContain("(invalid arguments for tool `add_todo`: /title must NOT have fewer than 1 characters (rule: minLength).");
    expect(line).toContain("--allow-unexercised");
    expect(refused.lines.at(-1)).toBe("10 checks: 7 passed, 3 failed, 0 skipped; 0/3 probes that call add_todo exercised its handler");
    expect(calls()).toEqual([]);
    expect(refused.code).toBe(1);

    const allowed = conformance(["--dir", dir, "--args", nearly, "--allow-unexercised"]);
    expect(Object.values(verdicts(allowed.lines))).toEqual(Array(10).fill("PASS"));
    expect(allowed.lines.find((l) => l.startsWith("PASS  cancellation"))).toContain("NOT EXERCISED (allowed): its call was refused by argument validation");
    expect(allowed.lines.at(-1)).toBe("10 checks: 10 passed, 0 failed, 0 skipped; 0/3 probes that call add_todo exercised its handler");
    expect(calls()).toEqual([]);
    expect(allowed.code).toBe(0);
  }, 120_000);

  test("--tool or --args that cannot be used: one line naming the option and the fix", () => {
    const unknown = conformance(["--dir", dir, "--tool", "remove_todo"]);
    expect({ code: unknown.code, stderr: unknown.stderr }).toEqual({ code: 1, stderr: "error: --tool remove_todo: the extension has no such tool; its tools: add_todo, list_todos" });
    const notJson = conformance(["--dir", dir, "--args", "{title:1}"]);
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toStartWith("error: --args is not JSON (");
    expect(notJson.stderr).toEndWith("): give the arguments as one JSON object, e.g. --args '{\"title\":\"x\"}'");
    const notObject = conformance(["--dir", dir, "--args", "[1]"]);
    expect({ code: notObject.code, stderr: notObject.stderr }).toEqual({ code: 1, stderr: "error: --args must be a JSON object (tool arguments are an object), e.g. --args '{\"title\":\"x\"}'" });
  }, 60_000);
});

describe("a tool whose validator refuses everything", () => {
  const FIXTURE = "test/fixtures/refusing-validator";

  test("conformance passes it over for a tool it can exercise", () => {
    const { code, lines } = conformance(["--dir", FIXTURE]);
    expect(lines).toContain("calls: echo {} (generated from its parameters schema; refuse_all refused it: invalid arguments for tool `refuse_all`: (arguments) refuses every call (rule: fixture). Call it again with arguments that match its parameters schema.)");
    expect(lines.at(-1)).toBe("10 checks: 10 passed, 0 failed, 0 skipped; 3/3 probes that call echo exercised its handler");
    expect(code).toBe(0);
  }, 90_000);

  test("--tool refuse_all: its calling probes are NOT EXERCISED failures", () => {
    const { code, lines } = conformance(["--dir", FIXTURE, "--tool", "refuse_all"]);
    const table = verdicts(lines);
    for (const name of CALLING) expect({ name, verdict: table[name] }).toEqual({ name, verdict: "FAIL" });
    expect(lines.find((l) => l.startsWith("FAIL  stdout purity"))).toContain("NOT EXERCISED: its call was refused by argument validation before the handler ran (invalid arguments for tool `refuse_all`");
    expect(lines.at(-1)).toBe("10 checks: 7 passed, 3 failed, 0 skipped; 0/3 probes that call refuse_all exercised its handler");
    expect(code).toBe(1);
  }, 90_000);
});
