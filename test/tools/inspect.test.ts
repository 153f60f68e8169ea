/**
 * `octet-extension inspect`, driven in a real terminal (tmux send-keys and
 * capture-pane): tools with schemas, a call, the schema skeleton, a live
 * progress bar, Ctrl-C cancelling the running call, an interactive answer
 * to a confirmation request, a violation shown as it happens, typed secrets
 * never shown, and quit.
 */
import { describe, expect, test } from "bun:test";
import { SECRET_PLACEHOLDER } from "octet-extension/testing";
import { inspectInTerminal as terminal } from "./terminal.ts";

describe("octet-extension inspect in a terminal", () => {
  test("tools, a call, a schema skeleton, Ctrl-C cancels the running call, quit shuts down", async () => {
    const t = await terminal("examples/typescript-hello");
    await t.waitFor("tools: text_stats · commands: none · type help");
    t.keys("tools", "Enter");
    await t.waitFor('"delayMs":{"type":"integer","minimum":0,"maximum":2000');
    t.keys('call text_stats {"text":"hi there"}', "Enter");
    await t.waitFor('= {"content":[{"type":"text","text":"characters=8 words=2 lines=1 utf8_bytes=8"}]');
    t.keys("call text_stats", "Enter");
    await t.waitFor('octet> call text_stats {"text":"","delayMs":0}');
    t.keys("C-u", 'call text_stats {"text":"slow","delayMs":2000}', "Enter");
    await t.waitFor("… Counting supplied text");
    t.keys("C-c");
    await t.waitFor(/\^C cancelling request \d+/);
    await t.waitFor('= error {"code":-32800,"message":"request cancelled"');
    t.keys("quit", "Enter");
    await t.waitFor("extension exited with status 0");
    await t.waitFor("INSPECT-EXIT=0");
  }, 60_000);

  test("a confirmation request is answered at the prompt; progress shows as a bar", async () => {
    const t = await terminal("test/fixtures/conformance/v02/octet-conformance-fixture");
    await t.waitFor("type help");
    t.keys("frames off", "Enter");
    t.keys('call confirm {"prompt":"Delete it?"}', "Enter");
    await t.waitFor("? confirm: Delete it? [y/N]");
    t.keys("y", "Enter");
    await t.waitFor('"text":"confirm:true"');
    t.keys('call progress {"steps":3}', "Enter");
    await t.waitFor("[################........] 2/3 step 2/3");
    await t.waitFor('"text":"progress:3"');
    t.keys("quit", "Enter");
    await t.waitFor("INSPECT-EXIT=0");
  }, 60_000);

  test("a violation of octet's rules is shown as it happens", async () => {
    const t = await terminal("test/fixtures/broken-extension");
    await t.waitFor("type help");
    t.keys('call slow {}', "Enter");
    await t.waitFor("!! octet would kill the extension: non-JSON on stdout: running slow tool...");
    t.keys("C-c", "C-c");
    await t.waitFor(/INSPECT-EXIT=1/);
  }, 60_000);

  test("a typed secret is never shown: no echo, the placeholder on the prompt line and in the → frame, not in the history", async () => {
    const t = await terminal("test/fixtures/conformance/v02/octet-conformance-fixture");
    await t.waitFor("type help");
    t.keys('call input {"prompt":"Password:","secret":true}', "Enter");
    await t.waitFor("? input (secret): Password: (empty: cancel) ");
    t.keys("s3cret-typed", "Enter");
    await t.waitFor('"text":"input:secret:12"'); // the fixture got all 12 bytes
    t.keys('call input {"prompt":"Token:","secret":true}', "Enter");
    await t.waitFor("? input (secret): Token: (empty: cancel) ");
    t.keys("hunter2-typed", "BSpace", "Enter"); // edited blind: the fixture gets 12 bytes
    await t.waitFor(/Token:[^]*= \{"content":\[\{"type":"text","text":"input:secret:12"\}\]/);
    // Two steps back through the history: the two calls, not the answers.
    t.keys("Up", "Up");
    await t.waitFor(/octet> call input \{"prompt":"Password:","secret":true\}\s*$/);
    t.keys("C-u", "quit", "Enter");
    await t.waitFor("INSPECT-EXIT=0");

    const raw = t.raw();
    const screen = t.screen();
    expect({
      echoed: ["s3cret-typed", "hunter2-type"].filter((secret) => raw.includes(secret)),
      prompts: [...(screen.match(/\? input \(secret\): .*/g) ?? [])],
      replies: [...(screen.match(/→ \{"jsonrpc":"2.0","id":"ts:\d","result":.*/g) ?? [])],
    }).toEqual({
      echoed: [],
      prompts: [`? input (secret): Password: (empty: cancel) ${SECRET_PLACEHOLDER}`, `? input (secret): Token: (empty: cancel) ${SECRET_PLACEHOLDER}`],
      replies: [1, 2].map((n) => `→ {"jsonrpc":"2.0","id":"ts:${n}","result":{"value":${JSON.stringify(SECRET_PLACEHOLDER)}}}`),
    });
  }, 60_000);
});
