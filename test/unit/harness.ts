import { Extension, type ExtensionOptions } from "octet-extension";

type Obj = Record<string, any>;

/**
 * Run an Extension in this process over in-memory streams, for the local
 * checks of helpers (what they refuse before anything is written). Wire
 * behaviour is tested at process level elsewhere.
 */
export async function inProcess(
  setup: (ext: Extension) => void,
  options: { api?: "0.1" | "0.2"; contributes?: Obj; features?: string[]; extension?: ExtensionOptions } = {},
) {
  const api = options.api ?? "0.2";
  // Log lines are kept here (see `logs` below), not written into the test runner's output.
  const logs: Obj[] = [];
  const ext = new Extension({ apiVersion: api, handleUncaught: false, logOutput: (line) => void logs.push(JSON.parse(line)), ...options.extension });
  setup(ext);
  const frames: Obj[] = [];
  const waiters: { predicate: (f: Obj) => boolean; resolve: (f: Obj) => void }[] = [];
  let control!: ReadableStreamDefaultController<Uint8Array>;
  const input = new ReadableStream<Uint8Array>({ start: (c) => void (control = c) });
  const output = {
    write(chunk: string | Uint8Array) {
      const text = typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
      for (const line of text.split("\n").filter(Boolean)) {
        const frame = JSON.parse(line);
        frames.push(frame);
        for (const w of [...waiters]) if (w.predicate(frame)) waiters.splice(waiters.indexOf(w), 1), w.resolve(frame);
      }
      return text.length;
    },
    flush: () => 0,
  };
  void ext.run({ input, output, exit: false });
  const send = (frame: Obj) => control.enqueue(new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", ...frame }) + "\n"));
  /** Several frames in one chunk: the runtime routes them all, then runs their handlers in one worker-pool turn. */
  const sendChunk = (list: Obj[]) => control.enqueue(new TextEncoder().encode(list.map((frame) => JSON.stringify({ jsonrpc: "2.0", ...frame }) + "\n").join("")));
  const waitFor = (predicate: (f: Obj) => boolean) =>
    new Promise<Obj>((resolve) => {
      const seen = frames.find(predicate);
      if (seen) resolve(seen);
      else waiters.push({ predicate, resolve });
    });
  const tools = [...(ext as unknown as { registry: { tools: Map<string, unknown> } }).registry.tools.keys()];
  const commands = [...(ext as unknown as { registry: { commands: Map<string, unknown> } }).registry.commands.keys()];
  const params: Obj = { api_version: api, contributes: { tools, commands, ...options.contributes } };
  if (api === "0.2") {
    params.protocol = { version: "0.2", required_features: ["request_cancellation", "content_parts"], optional_features: options.features ?? [], limits: { max_concurrent_requests: 4 } };
  }
  send({ id: 1, method: "initialize", params });
  const init = await waitFor((f) => f.id === 1);
  if (init.error) throw new Error(`initialize failed: ${JSON.stringify(init.error)}`);
  let next = 100;
  /** Call a tool and resolve with its reply frame. */
  const callTool = (name: string, args: Obj = {}, id = next++) => {
    send({ id, method: "tool/call", params: { name, arguments: args } });
    return waitFor((f) => f.id === id && !("method" in f));
  };
  return { ext, frames, logs, send, sendChunk, waitFor, callTool };
}
