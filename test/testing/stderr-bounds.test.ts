/**
 * The test host reads an extension's stderr in bounded memory (docs/testing.md
 * "stderr"): lines are cut at octet's limit, only the latest window of lines
 * is kept, and unstructured lines (cut ones included) are still violations
 * when strict. Fixture: test/fixtures/stderr-flood/.
 */
import { afterEach, expect, test } from "bun:test";
import { TestHost } from "octet-extension/testing";

const FLOOD = new URL("../fixtures/stderr-flood/flood-v02", import.meta.url).pathname;
const MEASURE = new URL("../fixtures/stderr-flood/measure.ts", import.meta.url).pathname;
const MiB = 1024 * 1024;
const LINE_LIMIT = MiB - 1;

const hosts: TestHost[] = [];
afterEach(() => {
  for (const host of hosts.splice(0)) host.kill();
});
async function ready(options: Parameters<typeof TestHost.start>[1] = {}): Promise<TestHost> {
  const host = await TestHost.start(FLOOD, options);
  hosts.push(host);
  await host.initialize();
  return host;
}
const text = (value: string) => ({ content: [{ type: "text", text: value }], is_error: false, metadata: {} });

test("64 MiB of newline-free stderr: the host holds under 16 MiB of it and peaks well below the flood's multiple, reads it all, flags it, keeps serving", async () => {
  const run = Bun.spawn([process.execPath, MEASURE, FLOOD, String(64 * MiB)], { stdout: "pipe", stderr: "pipe" });
  const [out, err] = [await new Response(run.stdout).text(), await new Response(run.stderr).text()];
  await run.exited;
  console.log(`64 MiB newline-free stderr flood under TestHost: ${out.trim() || err.trim()}`);
  const measured = JSON.parse(out);
  expect(measured.flooded).toEqual(text(`flooded ${64 * MiB}`));
  expect(measured.echo).toEqual(text("after"));
  expect(measured.doneRecord).toBe(true);
  // What stays held after a full collection is the bounded window (4 Mi units) and one line buffer.
  expect(measured.heldGrowthKiB).toBeLessThan(16 * 1024);
  // Peak RSS varies with collection timing (41–58 MiB seen; 643 MiB before the bound).
  expect(measured.peakGrowthKiB).toBeLessThan(80 * 1024);
  // Strict: the cut line is one violation (not one per piece), and shutdown reports it.
  expect(measured.violations).toBe(1);
  expect(measured.firstViolation).toStartWith(`stderr line longer than ${LINE_LIMIT} bytes (octet cuts it into pieces): xxxx`);
  expect(measured.shutdown).toBe("HostViolation");
}, 120_000);

test("a structured record longer than octet's line limit is a violation (octet would cut it); one just within the limit is not", async () => {
  const host = await ready();
  const prefix = '{"level":"info","message":"';
  const head = prefix.length + '"}'.length;
  expect(await host.callTool("flood", { record: LINE_LIMIT - head })).toEqual(text(`record ${LINE_LIMIT - head}`));
  expect(await host.callTool("flood", { record: LINE_LIMIT - head + 1 })).toEqual(text(`record ${LINE_LIMIT - head + 1}`));
  expect(await host.shutdown().catch((error: Error) => error.name)).toBe("HostViolation");
  expect(host.violations).toEqual([`stderr line longer than ${LINE_LIMIT} bytes (octet cuts it into pieces): ${prefix}${"y".repeat(200 - prefix.length)}`]);
  // The pieces are kept as octet's diagnostic events would be: the whole record, then the cut one in two pieces.
  expect(host.stderr.map((line) => Buffer.byteLength(line))).toEqual([LINE_LIMIT, LINE_LIMIT, 1]);
  expect(host.logs().length).toBe(1);
});

test("200,000 unstructured lines: 100 violations are listed and the rest counted; the kept window is bounded and what was dropped is counted", async () => {
  const host = await ready({ stderrWindow: 64 * 1024 });
  expect(await host.callTool("flood", { lines: 200_000 })).toEqual(text("lines 200000"));
  const deadline = performance.now() + 30_000;
  while (host.stderr.at(-1) !== "junk 199999" && performance.now() < deadline) await Bun.sleep(20);
  expect(host.stderr.at(-1)).toBe("junk 199999");
  expect(host.violations.length).toBe(101);
  expect(host.violations[0]).toBe("unstructured stderr line: junk 0");
  expect(host.violations[100]).toBe("199900 more unstructured stderr lines (not listed)");
  const kept = host.stderr.reduce((sum, line) => sum + line.length + 64, 0);
  expect(kept).toBeLessThanOrEqual(64 * 1024);
  expect(host.stderrDropped.lines + host.stderr.length).toBe(200_000);
  expect(host.stderr[0]).toBe(`junk ${host.stderrDropped.lines}`);
  expect(await host.callTool("echo", { text: "still here" })).toEqual(text("still here"));
});

test("octet-extension call under a flood of 600,000 stderr lines prints the latest window, says how many were dropped, and lists 100 violations", () => {
  const cli = new URL("../../codegen/cli.ts", import.meta.url).pathname;
  const run = Bun.spawnSync([process.execPath, cli, "call", "--dir", FLOOD, "flood", '{"lines":600000}'], { stdout: "pipe", stderr: "pipe" });
  const out = run.stdout.toString();
  expect(out).toContain('"text":"lines 600000"');
  const dropped = Number(/stderr \((\d+) earlier lines not kept: the test host keeps the latest 4 Mi characters\)/.exec(out)?.[1]);
  const printed = out.split("\n").filter((line) => line.startsWith("  stderr junk "));
  expect(dropped + printed.length).toBe(600_000);
  expect(printed.at(-1)).toBe("  stderr junk 599999");
  expect(out.split("\n").filter((line) => line.startsWith("! octet would kill the extension: ")).length).toBe(101);
  expect(out).toContain("! octet would kill the extension: 599900 more unstructured stderr lines (not listed)");
  expect(run.exitCode).toBe(1);
}, 60_000);
