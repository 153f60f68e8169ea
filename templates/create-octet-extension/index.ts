#!/usr/bin/env bun
/**
 * `bun create octet-extension NAME [--link]`: a working octet extension in
 * ./NAME. `--link` depends on the octet-extension registered with `bun link`
 * (a local checkout of the kit; installs offline).
 */
import { scaffold } from "./scaffold.ts";

const args = process.argv.slice(2);
const link = args.includes("--link");
const target = args.find((a) => !a.startsWith("--"));
if (!target) {
  console.error("usage: bun create octet-extension NAME [--link]");
  process.exit(2);
}
try {
  const dir = scaffold(target, link ? { dependency: "link:octet-extension" } : {});
  console.log(`created ${dir}\n\n  cd ${target}\n  bun install\n  bun test\n`);
} catch (error) {
  console.error(`error: ${(error as Error).message}`);
  process.exit(1);
}
