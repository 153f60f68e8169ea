import { describe, expect, test } from "bun:test";

/**
 * `npm run bench` talks to its subjects through BenchClient. Each client holds
 * both ends of two FIFOs; one that kept its reader or descriptors after
 * `shutdown()` leaked two descriptors per subject launch and kept the event
 * loop alive, so the bench printed its tables and then never exited.
 */
const script = new URL("./fixtures/bench/clients.ts", import.meta.url).pathname;

async function drive(count: number): Promise<{ exitCode: number | null; openFds: number; timedOut: boolean }> {
  const proc = Bun.spawn([process.execPath, script, String(count)], { stdout: "pipe", stderr: "pipe" });
  let timedOut = false;
  const kill = () => {
    timedOut = true;
    proc.kill();
  };
  // Launching the subjects may be slow on a loaded machine; what must be prompt is the exit once the
  // script has printed its last line (the leak kept the process alive after it).
  let timer = setTimeout(kill, 30_000);
  let out = "";
  let printed = false;
  const decoder = new TextDecoder();
  for await (const chunk of proc.stdout) {
    out += decoder.decode(chunk, { stream: true });
    if (!printed && out.includes('"openFds"') && out.endsWith("\n")) {
      printed = true;
      clearTimeout(timer);
      timer = setTimeout(kill, 8_000);
    }
  }
  const exitCode = await proc.exited;
  clearTimeout(timer);
  const last = out.trim().split("\n").at(-1) ?? "{}";
  return { exitCode, openFds: JSON.parse(last).openFds, timedOut };
}

describe.if(process.platform === "linux")("bench client", () => {
  test("exits by itself after its subjects shut down, and releases every descriptor", async () => {
    const one = await drive(1);
    const eight = await drive(8);
    expect(one.timedOut).toBe(false);
    expect(eight.timedOut).toBe(false);
    expect(one.exitCode).toBe(0);
    expect(eight.exitCode).toBe(0);
    expect(typeof one.openFds).toBe("number");
    // Seven more launches open (and must close) 28 more FIFO descriptors; a leak keeps at least
    // 14 of them. Bun's own descriptors (event loop, closes still in flight) vary by a few.
    expect(eight.openFds).toBeLessThanOrEqual(one.openFds + 4);
  }, 90_000);
});
