/**
 * `npm run pack [DIR]`: the four publishable packages as npm tarballs in DIR
 * (default dist/packages): octet-extension (src/), octet-extension-tools
 * (codegen/), create-octet-extension (templates/) and octet-native-host
 * (native-host/). These are exactly what
 * `npm publish` would upload; test/registry/journey.test.ts installs them
 * from a private registry.
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";

export const WORKSPACES = ["src", "codegen", "templates/create-octet-extension", "native-host"];
const REPO = resolve(import.meta.dir, "..");

/** Pack every workspace into `dir`; returns the tarball paths. */
export function pack(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const workspaces = WORKSPACES.flatMap((w) => ["--workspace", w]);
  const run = Bun.spawnSync(["npm", "pack", "--json", "--ignore-scripts", ...workspaces, "--pack-destination", dir], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`npm pack failed: ${run.stderr.toString()}`);
  return (JSON.parse(run.stdout.toString()) as { filename: string }[]).map((p) => join(dir, p.filename));
}

if (import.meta.main) {
  for (const tarball of pack(resolve(process.argv[2] ?? join(REPO, "dist/packages")))) console.log(tarball);
}
