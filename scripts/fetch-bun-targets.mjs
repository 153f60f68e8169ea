// postinstall (this repository only): fetch the other platforms' Bun runtimes
// as `npm pack` tarballs into .cache/bun-targets, at install time, so that
// `octet-extension build --target …` and its test never touch the network.
// Offline, it warns and leaves the targets test to fail with the command to run.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const version = JSON.parse(readFileSync(join(root, "node_modules/bun/package.json"), "utf8")).version;
const dir = join(root, ".cache/bun-targets");
mkdirSync(dir, { recursive: true });
for (const pkg of ["bun-linux-aarch64", "bun-darwin-x64", "bun-darwin-aarch64", "bun-windows-x64"]) {
  if (existsSync(join(dir, `oven-${pkg}-${version}.tgz`))) continue;
  try {
    execFileSync("npm", ["pack", `@oven/${pkg}@${version}`, "--pack-destination", dir, "--silent"], { stdio: ["ignore", "ignore", "inherit"] });
  } catch {
    console.warn(`warning: could not fetch @oven/${pkg}@${version}; run \`npm pack @oven/${pkg}@${version} --pack-destination .cache/bun-targets\` before the cross-platform build test`);
  }
}
