import { cleanupLaunch, pathWithBun, planLaunch, type LaunchPlan } from "./launch.ts";
import type { HostManifest } from "./manifest.ts";

/** The extension's process as octet runs it: launched by `launch.ts`'s plan, written to, ended, gone. */
export class ExtensionProcess {
  /** The exit status, once the process has exited. */
  exitCode: number | undefined;
  private readonly exited: Promise<number>;

  private constructor(
    private readonly proc: Bun.Subprocess<"pipe", "pipe", "pipe">,
    private readonly plan: LaunchPlan,
  ) {
    this.exited = proc.exited.then((code) => {
      this.exitCode = code;
      return code;
    });
  }

  /** Stage and start the extension of `manifest` with a cleared environment, in `workspace`. */
  static launch(
    manifest: HostManifest,
    options: { workspace: string; env?: Record<string, string | undefined>; addBunToPath?: boolean; scratch?: string },
  ): ExtensionProcess {
    const hostEnv = { ...(options.env ?? process.env) };
    if (options.addBunToPath !== false) hostEnv.PATH = pathWithBun(hostEnv.PATH);
    const plan = planLaunch(manifest, { workspace: options.workspace, hostEnv, scratch: options.scratch });
    const proc = Bun.spawn(plan.argv, { cwd: plan.cwd, env: plan.env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    return new ExtensionProcess(proc, plan);
  }

  get pid(): number {
    return this.proc.pid;
  }

  /** `OCTET_EXTENSION_SCRATCH`. */
  get scratch(): string {
    return this.plan.scratch;
  }

  get stdout(): ReadableStream<Uint8Array> {
    return this.proc.stdout;
  }

  get stderr(): ReadableStream<Uint8Array> {
    return this.proc.stderr;
  }

  /** Write `chunks` to stdin in order, then flush. */
  write(...chunks: (string | Uint8Array)[]): void {
    for (const chunk of chunks) this.proc.stdin.write(chunk);
    this.proc.stdin.flush();
  }

  /** Close stdin (EOF), unless the process is gone. */
  endStdin(): void {
    if (this.exitCode === undefined) this.proc.stdin.end();
  }

  /** SIGKILL, unless the process is gone. */
  kill(): void {
    if (this.exitCode === undefined) this.proc.kill("SIGKILL");
  }

  /**
   * The exit status, once the process is gone and `output` has been read (at most 1 s after
   * exit, in case a grandchild holds a pipe open); the launch's directories are removed then.
   */
  async gone(output: Promise<unknown>): Promise<number> {
    const code = await this.exited;
    await Promise.race([output, Bun.sleep(1_000)]);
    cleanupLaunch(this.plan);
    return code;
  }
}
