export {};
/**
 * Benchmark floor: the least a Bun process can do to answer the same frames
 * (no validation, no scheduling, no stdio protection). Not an example to follow.
 */
const sink = Bun.stdout.writer();
const decoder = new TextDecoder();
let buffer = "";
const send = (frame: unknown) => sink.write(JSON.stringify(frame) + "\n");
for await (const chunk of Bun.stdin.stream()) {
  buffer += decoder.decode(chunk, { stream: true });
  let lf: number;
  while ((lf = buffer.indexOf("\n")) !== -1) {
    const msg = JSON.parse(buffer.slice(0, lf));
    buffer = buffer.slice(lf + 1);
    if (msg.method === "initialize") {
      send({ jsonrpc: "2.0", id: msg.id, result: { api_version: "0.1", tools: [{ name: "echo", description: "Echo text", parameters: { type: "object" } }, { name: "burst", description: "Send args.count notifications", parameters: { type: "object" } }], commands: [] } });
    } else if (msg.method === "tool/call" && msg.params.name === "echo") {
      send({ jsonrpc: "2.0", id: msg.id, result: { content: msg.params.arguments.text ?? "", is_error: false, metadata: {} } });
    } else if (msg.method === "tool/call") {
      for (let i = 0; i < msg.params.arguments.count; i++) send({ jsonrpc: "2.0", method: "notification", params: { level: "info", message: `step ${i}` } });
      send({ jsonrpc: "2.0", id: msg.id, result: { content: "done", is_error: false, metadata: {} } });
    } else if (msg.method === "shutdown") {
      send({ jsonrpc: "2.0", id: msg.id, result: {} });
      await sink.flush();
      process.exit(0);
    }
  }
  await sink.flush();
}
