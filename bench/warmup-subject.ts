/**
 * One process of `bench/warmup.ts`: the runtime of the checkout at argv[2] serving the kit's `echo`
 * in this process, fed 64-frame chunks of the kit's `tool/call` frame, each chunk once the previous
 * one was answered (the kit's 64 calls in flight, without pipes). Prints one JSON line: the time
 * of calls 500–5,500 (the kit's measured pipe window in a fresh process) and the time a call takes
 * once everything is compiled, and how many replies came back.
 */
const root = process.argv[2] ?? new URL("..", import.meta.url).pathname;
const api = (process.argv[3] ?? "0.1") as "0.1" | "0.2";
const steadyChunks = Number(process.argv[4] ?? 300);
const { Extension } = (await import(`${root}/src/index.ts`)) as typeof import("../src/index.ts");

const ext = new Extension({ apiVersion: api, maxConcurrentRequests: 4, handleUncaught: false, logOutput: () => {} });
ext.tool({ name: "echo", description: "Echo text" }, (args: { text?: string }) => ({ content: args.text ?? "" }));

const context = JSON.stringify({
  workspace: "/tmp/octet-bench/workspace",
  execution_scope: null,
  host: { session_id: null, session_name: null, model: "bench-model", reasoning: null, active_skills: [] },
  ...(api === "0.1" ? {} : { resource_owner: { session_id: "octet-bench-session", extension_instance_id: "octet-bench-instance", process_generation: 1 } }),
});
const encoder = new TextEncoder();
// Sixteen chunks of distinct ids, made before anything is timed and used in turn (each is answered before it comes round again).
const chunks: Uint8Array[] = [];
for (let c = 0, id = 10; c < 16; c++) {
  let text = "";
  for (let i = 0; i < 64; i++, id++) text += `{"jsonrpc":"2.0","id":${id},"method":"tool/call","params":{"name":"echo","arguments":{"text":"hello from octet-bench"},"context":${context}}}\n`;
  chunks.push(encoder.encode(text));
}
const initialize =
  api === "0.1"
    ? { api_version: "0.1", contributes: { tools: ["echo"], commands: [] } }
    : { api_version: "0.2", contributes: { tools: ["echo"], commands: [] }, protocol: { version: "0.2", required_features: ["request_cancellation", "content_parts"], optional_features: [], limits: { max_concurrent_requests: 4 } } };

let replies = 0;
let awaited = 0;
let answered: (() => void) | undefined;
let input!: ReadableStreamDefaultController<Uint8Array>;
const output = {
  write(chunk: string | Uint8Array) {
    const text = typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) replies++;
    if (replies >= awaited && answered) {
      const done = answered;
      answered = undefined;
      done();
    }
    return text.length;
  },
  flush: () => 0,
};
void ext.run({
  input: new ReadableStream<Uint8Array>({
    start(controller) {
      input = controller;
      controller.enqueue(encoder.encode(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: initialize })}\n`));
    },
  }),
  output,
  exit: false,
});

let next = 0;
/** Send `count` chunks, each once the previous one is answered; milliseconds taken. */
async function send(count: number): Promise<number> {
  const start = performance.now();
  for (let k = 0; k < count; k++) {
    awaited = replies + 64;
    const done = new Promise<void>((resolve) => (answered = resolve));
    input.enqueue(chunks[next++ % chunks.length]!);
    await done;
  }
  return performance.now() - start;
}

awaited = 1;
await new Promise<void>((resolve) => (answered = resolve)); // the initialize reply
await new Promise((resolve) => setTimeout(resolve, 30)); // the request side loads after the reply
await send(8); // calls 0–511: the kit's untimed warm-up
// calls 512–5,503; `WINDOW_CHUNKS=0` stops after the warm-up (for instruction counts, docs/performance.md)
const windowMs = await send(Number(process.env.WINDOW_CHUNKS ?? 78));
const steadyUs = steadyChunks > 0 ? ((await send(steadyChunks)) * 1000) / (steadyChunks * 64) : 0;
// `answered` counts every reply line: the initialize reply and one per call.
console.log(JSON.stringify({ windowMs, steadyUs, answered: replies }));
process.exit(0);
