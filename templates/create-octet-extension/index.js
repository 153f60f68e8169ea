#!/usr/bin/env node
// `bun create octet-extension NAME` / `npm create octet-extension NAME`: a
// working octet extension in ./NAME. Under npm (Node only) the project also
// gets Bun as a dev dependency. `--link` takes octet-extension and
// octet-extension-tools from `bun link` (a checkout of the kit, offline).
import { scaffold } from "./scaffold.js";

const args = process.argv.slice(2);
const unknown = args.filter((a) => a.startsWith("-") && !["--link", "--with-bun", "--help", "-h"].includes(a));
const target = args.find((a) => !a.startsWith("-"));
const USAGE = "usage: bun create octet-extension NAME [--link]\n       npm create octet-extension NAME";
if (args.includes("--help") || args.includes("-h")) {
  console.log(USAGE);
  process.exit(0);
}
if (unknown.length > 0 || !target) {
  console.error(`${unknown.length > 0 ? `error: unknown option ${unknown.join(", ")}` : "error: name the extension to create"}\n${USAGE}`);
  process.exit(2);
}
// npm and bun name themselves in npm_config_user_agent; without it, judge by the runtime.
const agent = process.env.npm_config_user_agent ?? "";
const underBun = agent.startsWith("bun/") || (!agent.startsWith("npm/") && typeof process.versions.bun === "string");
const withBun = args.includes("--with-bun") || !underBun;
try {
  const dir = scaffold(target, { source: args.includes("--link") ? "link" : "registry", withBun });
  const steps = withBun ? ["npm install", "npm test", "npm run build"] : ["bun install", "bun test", "bun run build"];
  console.log(`created ${dir}\n\n  cd ${target}\n${steps.map((s) => `  ${s}\n`).join("")}`);
} catch (error) {
  console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
