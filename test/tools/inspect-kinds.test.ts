/**
 * `octet-extension inspect` invokes every kind a manifest declares (issue 25
 * item 1; docs/kinds.md), in a real terminal: `status`, `context`, `hook`,
 * `render`, `shortcut` and `menu`, with Tab completing the declared names.
 */
import { afterAll, describe, test } from "bun:test";
import { removeProjects } from "../codegen/helpers.ts";
import { implementedProject } from "../codegen/kinds-project.ts";
import { inspectInTerminal as terminal } from "./terminal.ts";

afterAll(removeProjects);

describe("inspect, one kind at a time", () => {
  test("status, context, hook, render, shortcut and menu send what octet sends and show the answer", async () => {
    const t = await terminal(implementedProject());
    await t.waitFor("type help");
    t.keys("frames off", "Enter");
    t.keys("help", "Enter");
    await t.waitFor("render TOOL [JSON]      run a tool renderer");
    t.keys("status", "Enter");
    await t.waitFor('= {"surface":"status","text":"1 todos","priority":1}');
    t.keys("status header", "Enter");
    await t.waitFor('= {"surface":"header","text":"todos on the header","priority":0,"style_role":"extension.kinds.header"}');
    t.keys("context next?", "Enter");
    await t.waitFor('= [{"label":"todos","content":"write docs","placement":"system_suffix"}]');
    t.keys("hook before_t", "Tab");
    await t.waitFor("octet> hook before_tool_call ");
    t.keys('{"name":"rm","arguments":{}}', "Enter");
    await t.waitFor('= {"disposition":{"action":"deny","reason":"no rm here"},"context":[],"notifications":[]}');
    t.keys('render add_todo {"arguments":{"title":"x"},"output":"added x"}', "Enter");
    await t.waitFor('= {"segments":[{"text":"add_todo · added x","style_role":null}]}');
    t.keys("shortcut open_todos", "Enter");
    await t.waitFor('= {"text":"opened by open_todos","notifications":[],"context":[]}');
    t.keys("menu", "Enter");
    await t.waitFor('= {"items":[{"id":"list","label":"List the todos","command":"todos","arguments":[]}]}');
    t.keys("hook before_prompt {oops", "Enter");
    await t.waitFor('hook before_prompt: give a JSON object, e.g. {"prompt":"hi"}');
    t.keys("quit", "Enter");
    await t.waitFor("INSPECT-EXIT=0");
  }, 60_000);
});
