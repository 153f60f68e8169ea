/**
 * `octet-extension inspect`, driven in a real terminal (tmux send-keys and
 * capture-pane): tools with schemas, a call, the schema skeleton, a live
 * progress bar, Ctrl-C cancelling the running call, an interactive answer
 * to a confirmation request, a violation shown as it happens, and quit.
 */
import { afterEach, describe, expect, test } from "bun:test";

const REPO = new URL("../../", import.meta.url).pathname;
const TMUX = Bun.which("tmux");
const sessions: string[] = [];
afterEach(() => {
  for (const name of sessions.splice(0)) Bun.spawnSync([TMUX!, "kill-session", "-t", name]);
});

/** Start the inspector in a detached tmux session; keys in, screen out. */
function terminal(dir: string) {
  expect(TMUX).not.toBeNull(); // .ci/run installs tmux when the machine lacks it
  const name = `inspect-${process.pid}-${sessions.length}`;
  sessions.push(name);
  const command = `cd ${REPO} && ${process.execPath} codegen/cli.ts inspect --dir ${dir}; echo INSPECT-EXIT=$?; sleep 60`;
  const started = Bun.spawnSync([TMUX!, "new-session", "-d", "-s", name, "-x", "220", "-y", "60", command]);
  expect(started.exitCode).toBe(0);
  const keys = (...k: string[]) => void Bun.spawnSync([TMUX!, "send-keys", "-t", name, ...k]);
  const screen = () => Bun.spawnSync([TMUX!, "capture-pane", "-t", name, "-p", "-J", "-S", "-200"]).stdout.toString();
  const waitFor = async (needle: string | RegExp, timeoutMs = 15_000) => {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const text = screen();
      if (typeof needle === "string" ? text.includes(needle) : needle.test(text)) return text;
      if (performance.now() > deadline) throw new Error(`the terminal never showed ${needle}:\n${text}`);
      await Bun.sleep(50);
    }
  };
  return { keys, screen, waitFor };
}

describe("octet-extension inspect in a terminal", () => {
  test("tools, a call, a schema skeleton, Ctrl-C cancels the running call, quit shuts down", async () => {
    const t = terminal("examples/typescript-hello");
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
    const t = terminal("test/fixtures/conformance/v02/octet-conformance-fixture");
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
    const t = terminal("test/fixtures/broken-extension");
    await t.waitFor("type help");
    t.keys('call slow {}', "Enter");
    await t.waitFor("!! octet would kill the extension: non-JSON on stdout: running slow tool...");
    t.keys("C-c", "C-c");
    await t.waitFor(/INSPECT-EXIT=1/);
  }, 60_000);
});
