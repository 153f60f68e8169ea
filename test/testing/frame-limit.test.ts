import { describe, expect, test } from "bun:test";
import { HostLineReader, type HostReadEvent } from "../../src/testing/stdout-reader.ts";
import { expectFatal, startRaw } from "../fixtures/testing/raw.ts";

/**
 * octet aborts the connection as soon as the buffered stdout line — a CR
 * included, the LF excluded — reaches 1,048,576 bytes (docs/protocol-0.2.md §1.2). The largest
 * accepted frame is 1,048,575 bytes + LF, or 1,048,574 bytes + CR + LF.
 */
const LIMIT = 1_048_576;
const LIMIT_MESSAGE = "stdout line reached the 1048576-byte frame limit (1 MiB, CR included, LF excluded)";

function read(chunks: (string | Uint8Array)[], end = true): (string | HostReadEvent["kind"])[] {
  const reader = new HostLineReader(LIMIT);
  const out: (string | HostReadEvent["kind"])[] = [];
  const emit = (event: HostReadEvent) => out.push(event.kind === "line" ? Buffer.from(event.bytes).toString("latin1") : event.kind);
  for (const chunk of chunks) reader.push(typeof chunk === "string" ? Buffer.from(chunk, "latin1") : chunk, emit);
  if (end) reader.end(emit);
  return out;
}
const x = (n: number) => "x".repeat(n);

describe("HostLineReader: octet's stdout limit, byte-exact", () => {
  test("1,048,575 bytes + LF is a line; 1,048,576 bytes + LF is oversize", () => {
    expect(read([x(LIMIT - 1) + "\n"])).toEqual([x(LIMIT - 1)]);
    expect(read([x(LIMIT) + "\n"])).toEqual(["oversize"]);
  });

  test("the CR counts: 1,048,574 + CR + LF is a line (CR stripped); 1,048,575 + CR + LF is oversize", () => {
    expect(read([x(LIMIT - 2) + "\r\n"])).toEqual([x(LIMIT - 2)]);
    expect(read([x(LIMIT - 1) + "\r\n"])).toEqual(["oversize"]);
  });

  test("the limit fires on an unterminated line, before any LF or EOF; the reader then stops", () => {
    expect(read([x(LIMIT)], false)).toEqual(["oversize"]);
    expect(read([x(LIMIT - 1)], false)).toEqual([]);
    expect(read([x(LIMIT), "\nafter\n"])).toEqual(["oversize"]);
  });

  test("a line split across chunks is counted as a whole; only one trailing CR is stripped; CR inside a line is kept", () => {
    expect(read([x(LIMIT / 2), x(LIMIT / 2 - 1), "\n"])).toEqual([x(LIMIT - 1)]);
    expect(read([x(LIMIT / 2), x(LIMIT / 2), "\n"])).toEqual(["oversize"]);
    expect(read([x(LIMIT - 2), "\r", "\n"])).toEqual([x(LIMIT - 2)]);
    expect(read(["a\r\r\nb\rc\n"])).toEqual(["a\r", "b\rc"]);
  });

  test("several lines in one chunk, blank lines, and a partial line at EOF", () => {
    expect(read(["a\nb\n\nc"])).toEqual(["a", "b", "", "unterminated"]);
    expect(read(["a\n"])).toEqual(["a"]);
  });
});

describe("test host: the frame limit against a raw extension", () => {
  test("the largest frame octet accepts (1,048,575 bytes + LF) is accepted", async () => {
    const host = await startRaw();
    const result = (await host.callTool("big", { size: LIMIT - 1 })) as { content: string };
    expect(result.content.length).toBeGreaterThan(LIMIT - 100);
    const line = host.transcript.findLast((e) => e.from === "extension")!;
    expect(Buffer.byteLength(line.text)).toBe(LIMIT - 1);
    expect(host.violations).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });

  test("with a CR, the largest accepted frame is 1,048,574 bytes + CR + LF", async () => {
    const host = await startRaw();
    await host.callTool("big", { size: LIMIT - 1, cr: true });
    expect(Buffer.byteLength(host.transcript.findLast((e) => e.from === "extension")!.text)).toBe(LIMIT - 2);
    expect(host.violations).toEqual([]);
    expect(await host.shutdown()).toBe(0);
  });

  test("one byte more (1,048,576 bytes + LF) is fatal", async () => {
    const host = await startRaw();
    await expectFatal(host, host.callTool("big", { size: LIMIT }), LIMIT_MESSAGE);
  });

  test("1,048,575 bytes + CR + LF is fatal: the CR counts toward the limit", async () => {
    const host = await startRaw();
    await expectFatal(host, host.callTool("big", { size: LIMIT, cr: true }), LIMIT_MESSAGE);
  });
});
