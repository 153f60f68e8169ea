import { existsSync, statSync } from "node:fs";

/** The macOS sleep-inhibit helper, bounded to 30 minutes as a fail-safe. */
export const HELPER = "/usr/bin/caffeinate";
export const MAX_INHIBIT_SECONDS = 30 * 60;

/**
 * Runs `caffeinate -i -t 1800` while wanted. `helperCommand` replaces the
 * real helper (tests and non-macOS development use a stand-in).
 */
export class Inhibitor {
  private process: ReturnType<typeof Bun.spawn> | undefined;
  lastError: string | undefined;

  constructor(
    private readonly helperCommand: string[] | undefined,
    private readonly log: (message: string, fields: Record<string, unknown>) => void,
  ) {}

  /** Is the helper running? Notices an exit and records a non-zero status. */
  get active(): boolean {
    const proc = this.process;
    if (!proc) return false;
    if (proc.exitCode === null && proc.signalCode === null) return true;
    this.process = undefined;
    if (proc.exitCode !== 0) this.lastError = `caffeinate exited with status ${proc.exitCode ?? proc.signalCode}`;
    return false;
  }

  get pid(): number | undefined {
    return this.active ? this.process!.pid : undefined;
  }

  /** Start the helper unless it runs already; false (with `lastError`) when it cannot. */
  start(): boolean {
    if (this.active) return true;
    this.lastError = undefined;
    const argv = this.helperCommand ?? [HELPER, "-i", "-t", String(MAX_INHIBIT_SECONDS)];
    if (!this.helperCommand) {
      if (process.platform !== "darwin") return this.fail("unsupported platform (macOS only)");
      if (!existsSync(HELPER) || !statSync(HELPER).isFile()) return this.fail(`${HELPER} was not found`);
    }
    try {
      this.process = Bun.spawn(argv, { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
      return true;
    } catch (error) {
      return this.fail((error as Error).message);
    }
  }

  /** Stop the helper: SIGTERM, up to 1 s, then SIGKILL, up to 1 s. */
  async stop(): Promise<void> {
    const proc = this.process;
    this.process = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    try {
      proc.kill("SIGTERM");
      if (await exitsWithin(proc, 1_000)) return;
      proc.kill("SIGKILL");
      if (!(await exitsWithin(proc, 1_000))) this.log("failed to kill caffeinate", { error: "did not exit after SIGKILL" });
    } catch (error) {
      this.log("failed to stop caffeinate", { error: (error as Error).message });
    }
  }

  /** Last resort at process exit: SIGKILL without waiting. */
  killNow(): void {
    if (this.process && this.process.exitCode === null) this.process.kill("SIGKILL");
    this.process = undefined;
  }

  private fail(message: string): false {
    this.lastError = message;
    return false;
  }
}

async function exitsWithin(proc: ReturnType<typeof Bun.spawn>, ms: number): Promise<boolean> {
  return Promise.race([proc.exited.then(() => true), Bun.sleep(ms).then(() => false)]);
}
