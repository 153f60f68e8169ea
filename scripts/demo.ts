/**
 * `npm run demo`: drive examples/hello-world through the strict test host,
 * exactly as octet would launch it, and print a readable transcript.
 */
import { TestHost, type TranscriptEntry } from "../src/testing/index.ts";

const dir = new URL("../examples/hello-world", import.meta.url).pathname;
const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: string, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);

let shown = 0;
function flush(host: TestHost): void {
  for (const entry of host.transcript.slice(shown)) print(entry);
  shown = host.transcript.length;
}

function print(entry: TranscriptEntry): void {
  const arrow = entry.from === "host" ? paint("36", "host → ext") : paint("32", "ext → host");
  const text = entry.text.length > 240 ? `${entry.text.slice(0, 240)}… (${entry.text.length} chars)` : entry.text;
  console.log(`  ${arrow}  ${text}`);
}

async function step(host: TestHost, title: string, action: () => Promise<unknown>): Promise<void> {
  console.log(paint("1", `\n● ${title}`));
  await action();
  await Bun.sleep(20);
  flush(host);
}

const host = await TestHost.start(dir);
console.log(paint("1", `octet-extension demo: ${host.manifest.name} ${host.manifest.version} (API ${host.manifest.api_version})`));
console.log(`  staged and launched as octet does: cleared environment, cwd ${host.workspace}`);

await step(host, "initialize (built from extension.toml)", () => host.initialize());
await step(host, "tool/call hello_world {name: Ada} — a notification precedes the result", () => host.callTool("hello_world", { name: "Ada" }));
await step(host, "command/execute /hello Grace", () => host.executeCommand("hello", ["Grace"]));
await step(host, "hook/run before_prompt", () => host.runHook("before_prompt", { prompt: "What changed?" }));
await step(host, "hook/run after_response", () => host.runHook("after_response", { response: "Nothing yet." }));
await step(host, "context/collect", () => host.collectContext("What changed?"));
await step(host, "status/collect status", () => host.collectStatus("status"));
await step(host, "tool/render hello_world", () => host.renderTool("hello_world", { name: "Ada" }, "Hello, Ada!"));
let code = -1;
await step(host, "shutdown", async () => {
  code = await host.shutdown();
});

console.log(paint("1", "\n● stderr (structured JSON logs)"));
for (const line of host.stderr.filter((l) => l.trim() !== "")) console.log(`  ${line}`);
const verdict = host.violations.length === 0 ? paint("32", "no host violations") : paint("31", `${host.violations.length} violations`);
console.log(`\nexit status ${code}; ${host.transcript.length} frames; ${verdict}`);
process.exit(host.violations.length === 0 && code === 0 ? 0 : 1);
