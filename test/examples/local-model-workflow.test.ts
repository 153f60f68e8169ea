import { afterEach, describe, expect, test } from "bun:test";
import { TestHost } from "octet-extension/testing";

const DIR = new URL("../../examples/local-model-workflow", import.meta.url).pathname;
let host: TestHost;
afterEach(() => host?.kill());

const TEXT = (model: string, workspace: string, skills: string) =>
  `Local-model workflow is active for ${model} in ${workspace}. Keep plans and tool output compact, inspect before editing, and ask for clarification when ambiguity would cause broad changes. Active skills: ${skills}.`;

describe("examples/local-model-workflow (process level, API 0.1)", () => {
  test("hook: context item, and one notification per process before the first reply", async () => {
    host = await TestHost.start(DIR);
    expect(await host.initialize()).toEqual({ api_version: "0.1", tools: [], commands: [] });
    const context = { workspace: "/home/user/project", execution_scope: null, host: { session_id: null, session_name: null, model: "ollama/qwen2.5-coder:7b", reasoning: null, active_skills: [{ id: "s1", name: "review", version: null }] } };
    const first = await host.call("hook/run", { hook: "before_prompt", payload: { prompt: "hi" }, context });
    expect(first).toEqual({
      disposition: { action: "continue" },
      context: [{ label: "local-model-workflow", content: TEXT("qwen2.5-coder:7b", "project", "review"), placement: "system_suffix" }],
      notifications: [],
    });
    await host.call("hook/run", { hook: "before_prompt", payload: { prompt: "again" }, context });
    expect(host.notifications("notification").map((f) => f.params)).toEqual([
      { level: "info", message: "Prompt shaping is enabled for qwen2.5-coder:7b.", title: "Local workflow active" },
    ]);
    const frames = host.extensionFrames();
    expect(frames.findIndex((f) => f.method === "notification")).toBeLessThan(frames.findIndex((f) => f.id === 2));
    expect(await host.shutdown()).toBe(0);
  });

  test("context/collect and status derive from the host state", async () => {
    host = await TestHost.start(DIR);
    await host.initialize();
    expect(await host.call("context/collect", { prompt: null, context: { workspace: "/home/user/project/" } })).toEqual([
      { label: "local-model-workflow", content: TEXT("local model", "project", "none"), placement: "system_suffix" },
    ]);
    const status = (skills: unknown[]) => host.call("status/collect", { surface: "status", context: { host: { model: "a/b/c", active_skills: skills } } });
    expect(await status([])).toEqual({ surface: "status", text: "local · c · 0 skills", priority: 20, style_role: "extension.local_model_workflow.status" });
    expect(await status([{ id: "x", name: "" }])).toMatchObject({ text: "local · c · 1 skill" });
    expect(await status([{ id: "x" }, { id: "y" }])).toMatchObject({ text: "local · c · 2 skills" });
    expect(await host.shutdown()).toBe(0);
  });
});
