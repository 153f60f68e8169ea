import { closeSync, constants, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lineBytes } from "../src/wire/line-bytes.ts";
import { LineSplitter } from "../src/wire/line-splitter.ts";

/**
 * A pipe pair as octet's host makes them (Bun.spawn's "pipe" is a socket
 * pair, which an extension treats differently): a FIFO opened read-write on
 * our side, so neither open blocks, and plainly on the child's side.
 */
function fifo(childFlags: number): { ours: number; theirs: number } {
  const dir = mkdtempSync(join(tmpdir(), "octet-bench-fifo-"));
  const path = join(dir, "fifo");
  if (Bun.spawnSync(["mkfifo", "-m", "600", path]).exitCode !== 0) throw new Error("mkfifo failed");
  const ours = openSync(path, constants.O_RDWR);
  const theirs = openSync(path, childFlags);
  rmSync(dir, { recursive: true, force: true });
  return { ours, theirs };
}

/** The two FIFOs of one launch (each `mkfifo` is a process of its own: make them before timing a start). */
export interface BenchPipes {
  stdin: { ours: number; theirs: number };
  stdout: { ours: number; theirs: number };
}

export function benchPipes(): BenchPipes {
  return { stdin: fifo(constants.O_RDONLY), stdout: fifo(constants.O_WRONLY) };
}

/** The API versions the bench runs (0.4 is the 0.2 wire under its own version). */
export type BenchApi = "0.1" | "0.2" | "0.4";

/** A minimal host for benchmarks: raw lines in, parsed frames out, no validation; stdio over pipes, as octet launches. */
export class BenchClient {
  private waiters = new Map<number, (frame: any) => void>();
  private nextId = 1;
  notifications = 0;
  readonly proc: Bun.Subprocess<number, number, "ignore">;
  private readonly input: ReturnType<ReturnType<typeof Bun.file>["writer"]>;
  private readonly fds: number[];
  private reader: { cancel(): Promise<void> } | undefined;

  constructor(
    argv: string[],
    private readonly api: BenchApi = "0.1",
    env: Record<string, string> = {},
    { stdin, stdout }: BenchPipes = benchPipes(),
  ) {
    // The protocol variables an octet host sets (docs/protocol-0.2.md §1.5), so the SDK runs as it does under octet.
    const protocol = { OCTET_EXTENSION_API_VERSION: api, OCTET_EXTENSION_NAME: "bench" };
    this.proc = Bun.spawn(argv, { stdin: stdin.theirs, stdout: stdout.theirs, stderr: "ignore", env: { ...process.env, ...env, ...protocol } });
    closeSync(stdin.theirs);
    closeSync(stdout.theirs);
    this.fds = [stdin.ours, stdout.ours];
    this.input = Bun.file(stdin.ours).writer();
    void this.read(stdout.ours);
  }

  private async read(fd: number): Promise<void> {
    const splitter = new LineSplitter(16 * 1024 * 1024);
    const decoder = new TextDecoder();
    // Our side also holds the write end, so this stream never ends by itself: `close()` cancels it.
    const reader = (this.reader = Bun.file(fd).stream().getReader());
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        splitter.push(value, (event) => {
          if (event.kind !== "line") return;
          const frame = JSON.parse(decoder.decode(lineBytes(event.parts)));
          if (frame.id === undefined) this.notifications++;
          else this.waiters.get(frame.id)?.(frame), this.waiters.delete(frame.id);
        });
      }
    } catch {
      /* cancelled or closed */
    }
  }

  /** Send one request; requests made in the same tick go out in one write, as the kit's driver sends them. */
  request(method: string, params: unknown): Promise<any> {
    const id = this.nextId++;
    const done = new Promise((resolve) => this.waiters.set(id, resolve));
    this.input.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    if (!this.flushQueued) {
      this.flushQueued = true;
      queueMicrotask(this.flushInput);
    }
    return done;
  }

  private flushQueued = false;
  private readonly flushInput = () => {
    this.flushQueued = false;
    void this.input.flush();
  };

  /** `initialize` as the shared kit's host sends it: API 0.2/0.4 offer concurrency 4 and request_progress. */
  initialize(tools = ["echo", "progress"]): Promise<any> {
    const params: Record<string, unknown> = { api_version: this.api, contributes: { tools, commands: [], notifications: true } };
    if (this.api !== "0.1") {
      params.protocol = { version: this.api, required_features: ["request_cancellation", "content_parts"], optional_features: ["request_progress"], limits: { max_concurrent_requests: 4 } };
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
    this.close();
  }

  /** Stop reading and close our ends of the pipes (after the process exited); otherwise the bench never exits. */
  close(): void {
    void this.reader?.cancel().catch(() => {});
    void this.input.end();
    for (const fd of this.fds.splice(0)) {
      try {
        closeSync(fd);
      } catch {
        /* closed already */
      }
    }
  }
}

/** The middle value (upper middle for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
