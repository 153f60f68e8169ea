/**
 * Benchmark floor: the least a Bun process can do to answer the same frames
 * (no validation, no scheduling, no stdio protection). Not an example to follow.
 */
const v02 = process.env.OCTET_EXTENSION_API_VERSION === "0.2";
const sink = Bun.stdout.writer();
const decoder = new TextDecoder();
let buffer = "";
const send = (frame: unknown) => sink.write(JSON.stringify(frame) + "\n");
const tools = [
  { name: "echo", description: "Echo text", parameters: { type: "object" } },
  { name: "burst", description: "Stream args.count notifications or progress events", parameters: { type: "object" } },
];
const result = (text: string) => (v02 ? { content: [{ type: "text", text }], is_error: false, metadata: {} } : { content: text, is_error: false, metadata: {} });

async function main(): Promise<void> {
  for await (const chunk of Bun.stdin.stream()) {
    buffer += decoder.decode(chunk, { stream: true });
    let lf: number;
    while ((lf = buffer.indexOf("\n")) !== -1) {
      const msg = JSON.parse(buffer.slice(0, lf));
      buffer = buffer.slice(lf + 1);
      if (msg.method === "initialize") {
        const reply: Record<string, unknown> = { api_version: v02 ? "0.2" : "0.1", tools, commands: [] };
        if (v02) reply.protocol = { version: "0.2", features: ["request_cancellation", "content_parts", "request_progress"], limits: { max_concurrent_requests: 4 } };
        send({ jsonrpc: "2.0", id: msg.id, result: reply });
      } else if (msg.method === "tool/call" && msg.params.name === "echo") {
        send({ jsonrpc: "2.0", id: msg.id, result: result(msg.params.arguments.text ?? "") });
      } else if (msg.method === "tool/call") {
        for (let i = 0; i < msg.params.arguments.count; i++) {
          if (v02) send({ jsonrpc: "2.0", method: "$/progress", params: { request_id: msg.id, sequence: i + 1, event: { type: "status", message: `step ${i}`, current: i } } });
          else send({ jsonrpc: "2.0", method: "notification", params: { level: "info", message: `step ${i}` } });
        }
        send({ jsonrpc: "2.0", id: msg.id, result: result("done") });
      } else if (msg.method === "shutdown") {
        send({ jsonrpc: "2.0", id: msg.id, result: {} });
        await sink.flush();
        process.exit(0);
      }
    }
    await sink.flush();
  }
}
void main();
