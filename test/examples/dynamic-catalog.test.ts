import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TestHost, temporaryDirectory } from "octet-extension/testing";

const DIR = new URL("../../examples/dynamic-catalog", import.meta.url).pathname;
let host: TestHost;
afterEach(() => host?.kill());

function workspaceWith(tools: object[]): string {
  const ws = temporaryDirectory("dynamic-catalog-");
  mkdirSync(join(ws, ".octet"));
  writeFileSync(join(ws, ".octet", "dynamic-tools.json"), JSON.stringify({ tools }));
  return ws;
}

const greet = { name: "greet", description: "Greet someone", template: "Hello, {name}!", parameters: { type: "object", properties: { name: { type: "string" } } } };
const shout = { name: "shout", description: "Shout", template: "{text}!!!" };

describe("examples/dynamic-catalog (process level, API 0.2)", () => {
  test("sync publishes the file's tools; they answer at the new revision; vanished tools are removed", async () => {
    const ws = workspaceWith([greet, shout]);
    host = await TestHost.start(DIR, { workspace: ws });
    await host.initialize();
    expect(await host.callTool("sync_catalog", {})).toMatchObject({ content: [{ type: "text", text: "registered 2 at revision 1" }] });
    expect(host.extensionFrames().find((f) => f.method === "tools/register")!.params).toEqual({
      tools: [
        { name: "greet", description: "Greet someone", parameters: greet.parameters },
        { name: "shout", description: "Shout", parameters: { type: "object" } },
      ],
    });
    host.catalogRevision = 1;
    expect(await host.callTool("greet", { name: "Ada" })).toMatchObject({ content: [{ type: "text", text: "Hello, Ada!" }] });
    expect(await host.executeCommand("catalog")).toMatchObject({ text: "revision 1: greet, shout" });

    writeFileSync(join(ws, ".octet", "dynamic-tools.json"), JSON.stringify({ tools: [greet] }));
    expect(await host.executeCommand("catalog", ["sync"])).toMatchObject({ text: "registered 1 at revision 2; removed shout at revision 3" });
    await expect(host.callTool("shout", { text: "hey" }, { catalogRevision: 3 })).rejects.toMatchObject({ code: -32601 });
    expect(await host.callTool("shout", { text: "hey" }, { catalogRevision: 1 })).toMatchObject({ content: [{ type: "text", text: "hey!!!" }] });
    expect(await host.shutdown()).toBe(0);
  });

  test("a broken catalog file is an is_error result naming the file; without dynamic_tools the sync is refused", async () => {
    const ws = temporaryDirectory("dynamic-catalog-");
    host = await TestHost.start(DIR, { workspace: ws });
    await host.initialize();
    const broken = (await host.callTool("sync_catalog", {})) as { is_error: boolean; content: { text: string }[] };
    expect(broken.is_error).toBe(true);
    expect(broken.content[0]!.text).toContain(".octet/dynamic-tools.json");
    expect(await host.shutdown()).toBe(0);

    host = await TestHost.start(DIR, { workspace: workspaceWith([greet]), offer: { optional: [] } });
    await host.initialize();
    await expect(host.callTool("sync_catalog", {})).rejects.toMatchObject({ code: -32601 });
    expect(await host.shutdown()).toBe(0);
  });
});
