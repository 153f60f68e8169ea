import { chmodSync, copyFileSync, existsSync, statSync, symlinkSync } from "node:fs";
import { removeTemporaryDirectory, temporaryDirectory } from "./temp-dirs.ts";
import { basename, isAbsolute, join, resolve } from "node:path";
import type { HostManifest } from "./manifest.ts";

/** Environment names octet passes through from its own environment (docs/protocol-0.2.md §1.5). */
export const PASSTHROUGH_ENV = [
  "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "TMP", "TEMP", "LANG", "LC_ALL", "LC_CTYPE",
  "TERM", "COLORTERM", "NO_COLOR", "SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT", "OCTET_PACKAGE_DIR",
];

/** Entry-point staging cap (docs/protocol-0.2.md §1.5). */
export const STAGING_LIMIT_BYTES = 64 * 1024 * 1024;

export interface LaunchPlan {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  /** Private directories to remove when the process is gone. */
  cleanup: string[];
  scratch: string;
}

/**
 * Build the launch exactly as octet does: resolve `[entrypoint].command`
 * (absolute; beside the manifest; bare names on PATH), copy that single file
 * into a private temporary directory (≤ 64 MiB) and run the copy there, with a
 * cleared environment (passthrough names, `[entrypoint].env`, then `OCTET_*`)
 * and the workspace as the working directory.
 */
export function planLaunch(manifest: HostManifest, options: { workspace: string; hostEnv: Record<string, string | undefined>; scratch?: string }): LaunchPlan {
  const command = manifest.entrypoint.command;
  const source = resolveCommand(command, manifest.dir, options.hostEnv.PATH);
  const cleanup: string[] = [];
  let program = command;
  if (source) {
    const size = statSync(source).size;
    if (size > STAGING_LIMIT_BYTES) throw new Error("extension entrypoint exceeds the 64 MiB staging limit");
    const stage = temporaryDirectory("octet-stage-");
    chmodSync(stage, 0o700);
    program = join(stage, basename(source));
    copyFileSync(source, program);
    chmodSync(program, 0o700);
    cleanup.push(stage);
  }
  // A caller-provided scratch directory is the caller's to remove.
  const scratch = options.scratch ?? temporaryDirectory("octet-scratch-");
  if (options.scratch === undefined) cleanup.push(scratch);
  const env: Record<string, string> = {};
  for (const name of PASSTHROUGH_ENV) {
    const value = options.hostEnv[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, manifest.entrypoint.env);
  if (manifest.api_version !== "0.1") {
    for (const name of manifest.capabilities.environment) {
      const value = options.hostEnv[name];
      if (value) env[name] = value;
    }
  }
  Object.assign(env, {
    OCTET_EXTENSION_API_VERSION: manifest.api_version,
    OCTET_EXTENSION_NAME: manifest.name,
    OCTET_EXTENSION_DIR: manifest.dir,
    OCTET_EXTENSION_MANIFEST: manifest.path,
    OCTET_WORKSPACE: options.workspace,
    OCTET_EXTENSION_SCRATCH: scratch,
  });
  return { argv: [program, ...manifest.entrypoint.args], env, cwd: options.workspace, cleanup, scratch };
}

function resolveCommand(command: string, manifestDir: string, path: string | undefined): string | undefined {
  if (isAbsolute(command)) {
    if (!existsSync(command)) throw new Error(`extension entrypoint ${command} does not exist`);
    return command;
  }
  const beside = resolve(manifestDir, command);
  if (existsSync(beside) && statSync(beside).isFile()) return beside;
  if (!command.includes("/")) {
    const found = Bun.which(command, { PATH: path ?? "" });
    if (found) return found;
  }
  return undefined;
}

/** Remove the staging and scratch directories of a finished launch (what cannot go now goes at exit). */
export function cleanupLaunch(plan: LaunchPlan): void {
  for (const dir of plan.cleanup) {
    try {
      removeTemporaryDirectory(dir);
    } catch {
      /* still registered: removeTemporaryDirectories() or the process exit retries it */
    }
  }
}

let bunShim: string | undefined;

/**
 * PATH for launching: the host's, plus a directory holding a `bun` link to the
 * running Bun when `bun` is not on it (npm installs it as `bun.exe`).
 */
export function pathWithBun(path: string | undefined): string {
  const base = path ?? "";
  if (Bun.which("bun", { PATH: base })) return base;
  if (!bunShim || !existsSync(bunShim)) {
    // Made again after removeTemporaryDirectories() took it.
    bunShim = temporaryDirectory("octet-bun-");
    symlinkSync(process.execPath, join(bunShim, "bun"));
  }
  return base ? `${base}:${bunShim}` : bunShim;
}
