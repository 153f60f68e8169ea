/**
 * `octet-extension call` invokes every kind a manifest declares (issue 25
 * item 1; docs/kinds.md): `--status [SURFACE]`, `--context [PROMPT]`,
 * `--hook NAME [JSON]`, `--render TOOL [JSON]`, `--shortcut NAME`, `--menu`,
 * beside tools and `/commands`, on the every-kind project.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { removeProjects } from "../codegen/helpers.ts";
import { cli, implementedProject } from "../codegen/kinds-project.ts";

afterAll(removeProjects);

describe("call, one kind at a time", () => {
  test("call invokes each kind", () => {
    const dir = implementedProject();
    const quiet = (...args: string[]) => {
      const run = cli(dir, "call", "--quiet", ...args);
      expect({ args, code: run.code, stderr: run.code === 0 ? "" : run.stderr }).toEqual({ args, code: 0, stderr: "" });
      return run.stdout;
    };
    expect(quiet("add_todo", '{"title":"x"}')).toBe("added x\n");
    expect(quiet("/todos")).toBe("write docs\n");
    expect(quiet("--status")).toBe("1 todos\n");
    expect(quiet("--status", "header")).toBe("todos on the header\n");
    expect(quiet("--context", "next?")).toBe("write docs\n");
    expect(quiet("--hook", "before_tool_call", '{"name":"rm","arguments":{}}')).toBe("deny: no rm here\n");
    expect(quiet("--hook", "before_prompt", '{"prompt":"next?"}')).toBe("continue\n");
    expect(quiet("--render", "add_todo", '{"arguments":{"title":"x"},"output":"added x"}')).toBe("add_todo · added x\n");
    expect(quiet("--shortcut", "open_todos")).toBe("opened by open_todos\n");
    expect(quiet("--menu")).toBe("List the todos: /todos\n");
    const verbose = cli(dir, "call", "--hook", "before_prompt", '{"prompt":"next?"}');
    expect(verbose.code).toBe(0);
    expect(verbose.stdout).toContain("context todos: 1 open for next?");
    const bad = cli(dir, "call", "--hook", "before_prompt", "{not json");
    expect(bad.code).toBe(2);
    expect(`${bad.stdout}${bad.stderr}`).toContain("--hook before_prompt: the payload is not JSON");
    const undeclared = cli(dir, "call", "--status", "footer");
    expect(undeclared.code).toBe(1);
    expect(undeclared.stdout).toContain("! footer is not a declared ui");
    const wrongSurface = cli(dir, "call", "--status", "sidebar");
    expect(wrongSurface.code).toBe(2);
    expect(wrongSurface.stdout).toContain("error: --status sidebar: a surface is status, header or footer");
  });
});
