import { LineSplitter, lineBytes } from "../src/wire/line-splitter.ts";

/** A minimal host for benchmarks: raw lines in, parsed frames out, no validation. */
export class BenchClient {
  private waiters = new Map<number, (frame: any) => void>();
  private nextId = 1;
  notifications = 0;
  readonly proc: Bun.Subprocess<"pipe", "pipe", "ignore">;

  constructor(
    argv: string[],
    private readonly api: "0.1" | "0.2" = "0.1",
    env: Record<string, string> = {},
  ) {
    // The protocol variables an octet host sets (spec §1.5), so the SDK runs as it does under octet.
    const protocol = { OCTET_EXTENSION_API_VERSION: api, OCTET_EXTENSION_NAME: "bench" };
    this.proc = Bun.spawn(argv, { stdin: "pipe", stdout: "pipe", stderr: "ignore", env: { ...process.env, ...env, ...protocol } });
    void this.read();
  }

  private async read(): Promise<void> {
    const splitter = new LineSplitter(16 * 1024 * 1024);
    const decoder = new TextDecoder();
    for await (const chunk of this.proc.stdout) {
      splitter.push(chunk, (event) => {
        if (event.kind !== "line") return;
        const frame = JSON.parse(decoder.decode(lineBytes(event.parts)));
        if (frame.id === undefined) this.notifications++;
        else this.waiters.get(frame.id)?.(frame), this.waiters.delete(frame.id);
      });
    }
  }

  request(method: string, params: unknown): Promise<any> {
    const id = this.nextId++;
    const done = new Promise((resolve) => this.waiters.set(id, resolve));
    this.proc.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    this.proc.stdin.flush();
    return done;
  }

  initialize(tools = ["echo", "burst"]): Promise<any> {
    const params: Record<string, unknown> = { api_version: this.api, contributes: { tools, commands: [], notifications: true } };
    if (this.api === "0.2") {
      params.protocol = { version: "0.2", required_features: ["request_cancellation", "content_parts"], optional_features: ["request_progress"], limits: { max_concurrent_requests: 64 } };
    }
    return this.request("initialize", params);
  }

  /** Peak resident set size in KiB (Linux). */
  async peakRssKiB(): Promise<number> {
    const status = await Bun.file(`/proc/${this.proc.pid}/status`).text().catch(() => "");
    return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  }

  async shutdown(): Promise<void> {
    await this.request("shutdown", {});
    await this.proc.exited;
  }
}

/** The middle value (upper middle for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
