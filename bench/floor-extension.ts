/**
 * Benchmark floor, written like the shared kit's (`ext/echo.ts`): the least a
 * Bun process does to answer the same frames — `JSON.parse` + `JSON.stringify`
 * per message, one stdout write per input chunk, no validation, no scheduling,
 * no stdio protection. Not an example to follow.
 */
const api = process.env.OCTET_EXTENSION_API_VERSION ?? "0.1";
const v02 = api === "0.2" || api === "0.4";
const out = Bun.stdout.writer();
const tools = [
  { name: "echo", description: "Echo text", parameters: { type: "object" } },
  { name: "progress", description: "Emit progress", parameters: { type: "object" } },
];
const result = (text: string) => (v02 ? { content: [{ type: "text", text }], is_error: false } : { content: text, is_error: false });

function handle(line: string): string {
  const msg = JSON.parse(line);
  const id = msg.id;
  if (id === undefined || typeof msg.method !== "string") return "";
  if (msg.method === "tool/call") {
    const args = msg.params?.arguments ?? {};
    if (msg.params?.name === "progress") {
      const k = Number(args.count ?? 0);
      let s = "";
      for (let i = 1; i <= k; i++) {
        const frame = v02
          ? { jsonrpc: "2.0", method: "$/progress", params: { request_id: id, sequence: i, event: { type: "status", message: `step ${i}`, current: i, total: k } } }
          : { jsonrpc: "2.0", method: "notification", params: { level: "info", message: `step ${i} of ${k}` } };
        s += JSON.stringify(frame) + "\n";
      }
      return s + JSON.stringify({ jsonrpc: "2.0", id, result: result("done") }) + "\n";
    }
    return JSON.stringify({ jsonrpc: "2.0", id, result: result(typeof args.text === "string" ? args.text : "") }) + "\n";
  }
  if (msg.method === "initialize") {
    const reply: Record<string, unknown> = { api_version: api, tools, commands: [] };
    if (v02) reply.protocol = { version: api, features: ["request_cancellation", "content_parts", "request_progress"], limits: { max_concurrent_requests: 4 } };
    return JSON.stringify({ jsonrpc: "2.0", id, result: reply }) + "\n";
  }
  if (msg.method === "shutdown") {
    out.write(JSON.stringify({ jsonrpc: "2.0", id, result: {} }) + "\n");
    Promise.resolve(out.flush()).then(() => process.exit(0));
    return "";
  }
  return JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32601, message: "unknown method" } }) + "\n";
}

async function main(): Promise<void> {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of Bun.stdin.stream()) {
    const text = decoder.decode(chunk, { stream: true });
    let nl = text.indexOf("\n");
    if (nl < 0) {
      pending += text;
      continue;
    }
    let batch = handle(pending + text.slice(0, nl));
    let start = nl + 1;
    while ((nl = text.indexOf("\n", start)) >= 0) {
      if (nl > start) batch += handle(text.slice(start, nl));
      start = nl + 1;
    }
    pending = text.slice(start);
    if (batch) {
      out.write(batch);
      await out.flush();
    }
  }
  await out.end();
}
void main();
