import { LineSplitter, lineBytes } from "../src/wire/line-splitter.ts";

/** A minimal host for benchmarks: raw lines in, parsed frames out, no validation. */
export class BenchClient {
  private waiters = new Map<number, (frame: any) => void>();
  private nextId = 1;
  notifications = 0;
  readonly proc: Bun.Subprocess<"pipe", "pipe", "ignore">;

  constructor(argv: string[]) {
    this.proc = Bun.spawn(argv, { stdin: "pipe", stdout: "pipe", stderr: "ignore", env: { ...process.env, OCTET_EXTENSION_API_VERSION: "0.1" } });
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

  initialize(): Promise<any> {
    return this.request("initialize", { api_version: "0.1", contributes: { tools: ["echo", "burst"], commands: [], notifications: true } });
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
