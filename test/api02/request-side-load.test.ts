/**
 * The request side of a session (request table, method layer, worker pool) is loaded once the
 * initialize reply is out (issue 28: it is not start-up code). Whatever the host sends meanwhile, in
 * the same write as initialize, is held and served in arrival order once it is there, and an EOF
 * behind it waits for it. Checked on the build `octet-extension build` makes (split chunks, the
 * request side a separate chunk) and from source.
 */
import { describe, expect, test } from "bun:test";
import { compiledOnce } from "../helpers.ts";

const SOURCE = new URL("../../bench/sdk-extension.ts", import.meta.url).pathname;
const built = compiledOnce("octet-request-side-", () => SOURCE);

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    api_version: "0.2",
    contributes: { tools: ["echo", "progress"], commands: [] },
    protocol: { version: "0.2", required_features: ["request_cancellation", "content_parts"], optional_features: ["request_progress"], limits: { max_concurrent_requests: 4 } },
  },
});
const echo = (id: number, text: string) => JSON.stringify({ jsonrpc: "2.0", id, method: "tool/call", params: { name: "echo", arguments: { text } } });
const textReply = (id: number, text: string) => ({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text }], is_error: false, metadata: {} } });

/** Write `input` in one write, close stdin when `eof`, and collect every stdout frame until the process exits. */
async function session(command: string[], input: string, eof: boolean): Promise<{ frames: Record<string, unknown>[]; code: number }> {
  const child = Bun.spawn(command, { stdin: "pipe", stdout: "pipe", stderr: "ignore", env: { ...process.env, OCTET_EXTENSION_API_VERSION: "0.2" } });
  child.stdin.write(input);
  child.stdin.flush();
  if (eof) child.stdin.end();
  const text = await new Response(child.stdout).text();
  const code = await child.exited;
  if (!eof) child.stdin.end();
  return { frames: text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line)), code };
}

describe.each([
  ["compiled with octet-extension build's flags", () => [built.binary]],
  ["from source", () => [process.execPath, SOURCE]],
])("frames behind initialize, %s", (_label, command) => {
  test("requests, a notification, a malformed frame and shutdown sent with initialize are served in order", async () => {
    const input = [initialize, echo(2, "first"), '{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":99}}', "not json", echo(3, "second"), '{"jsonrpc":"2.0","id":4,"method":"shutdown"}'].join("\n") + "\n";
    const { frames, code } = await session(command(), input, false);
    expect(frames.map((frame) => frame.id)).toEqual([1, null, 2, 3, 4]);
    expect((frames[0]!.result as { api_version: string }).api_version).toBe("0.2");
    expect(frames[1]!.error).toMatchObject({ code: -32700 });
    expect(frames[2]).toEqual(textReply(2, "first"));
    expect(frames[3]).toEqual(textReply(3, "second"));
    expect(frames[4]).toEqual({ jsonrpc: "2.0", id: 4, result: {} });
    expect(code).toBe(0);
  }, 20_000);

  test("an EOF right behind initialize and a request: the request is answered, then the process exits 0", async () => {
    const { frames, code } = await session(command(), `${initialize}\n${echo(2, "before the end")}\n`, true);
    expect(frames.map((frame) => frame.id)).toEqual([1, 2]);
    expect(frames[1]).toEqual(textReply(2, "before the end"));
    expect(code).toBe(0);
  }, 20_000);
});
