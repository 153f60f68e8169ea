/**
 * `ext.progress("…", { current, total })` from a running handler is written by a fast path
 * (its pieces spliced around one `JSON.stringify` of the message, issue 28); everything else by the
 * general path. Both must write the same bytes in call order with consecutive sequences
 * (docs/protocol-0.2.md §4.6).
 */
import { afterEach, expect, test } from "bun:test";
import { TestHost } from "octet-extension/testing";

const DIR = new URL("../fixtures/progress-lines/octet-progress-lines", import.meta.url).pathname;
const started: TestHost[] = [];
afterEach(() => {
  for (const host of started.splice(0)) host.kill();
});

test("status progress: fast and general paths write the same bytes, in order, sequences 1..n", async () => {
  const host = await TestHost.start(DIR, { requestTimeoutMs: 10_000 });
  started.push(host);
  await host.initialize();
  const id = host.peekNextId();
  const result = await host.callTool("lines");
  expect(result).toEqual({ content: [{ type: "text", text: "progress total must be a non-negative integer or null" }], is_error: false, metadata: {} });
  const events = [
    '{"type":"status","message":"plain"}',
    '{"type":"status","message":"with counts","current":1,"total":3}',
    '{"type":"status","message":"quote \\" backslash \\\\ accent \u00e9 lone \ufffd end","current":0}',
    '{"type":"status","message":"null current","current":null,"total":2}',
    '{"type":"status","message":"beyond 2^32","current":1099511627776,"total":1099511627776}',
    '{"type":"status","message":"with a unit","current":1,"unit":"files"}',
    '{"type":"status","message":"via ctx.host","total":5}',
    '{"type":"status","message":"an event object","current":2}',
    '{"type":"status","message":"after an await","current":4}',
  ];
  // The lines as written, byte for byte: the fast path splices its pieces, the general one stringifies the frame.
  const lines = host.transcript.filter((entry) => entry.from === "extension" && entry.frame?.method === "$/progress").map((entry) => entry.text);
  expect(lines).toEqual(events.map((event, i) => `{"jsonrpc":"2.0","method":"$/progress","params":{"request_id":${id},"sequence":${i + 1},"event":${event}}}`));
  expect(await host.shutdown()).toBe(0);
});

test("notifications: fast and general paths write the same bytes, in order", async () => {
  const host = await TestHost.start(DIR, { requestTimeoutMs: 10_000 });
  started.push(host);
  await host.initialize();
  const result = await host.callTool("notes");
  expect(result).toEqual({ content: [{ type: "text", text: "notification level must be one of info, success, warning, error" }], is_error: false, metadata: {} });
  const lines = host.transcript.filter((entry) => entry.from === "extension" && entry.frame?.method === "notification").map((entry) => entry.text);
  const params = [
    '{"level":"info","message":"plain"}',
    '{"level":"warning","message":"a warning"}',
    '{"level":"success","message":"titled","title":"Title"}',
    '{"level":"info","message":"lone \ufffd end"}',
    '{"level":"error","message":"through the deprecated name"}',
  ];
  expect(lines).toEqual(params.map((p) => `{"jsonrpc":"2.0","method":"notification","params":${p}}`));
  expect(await host.shutdown()).toBe(0);
});
