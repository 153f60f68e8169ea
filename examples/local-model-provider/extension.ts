/**
 * A model provider on API 0.3: registers one local model with octet and
 * streams its tokens. Each stream starts `model.ts` as a child process and
 * turns every line it prints into a `text_delta`; `provider/cancel` (the
 * handler's `ctx.signal`) kills the child.
 */
import { Extension, type JsonObject, type ProviderEvent } from "octet-extension";

const ext = new Extension();
const MODEL = new URL("./model.ts", import.meta.url).pathname;

/** The text of the last user message of octet's request (string content, or its text parts). */
function promptOf(request: JsonObject): string {
  const messages = Array.isArray(request.messages) ? (request.messages as JsonObject[]) : [];
  const user = messages.findLast((m) => m?.role === "user");
  const content = user?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
  return "";
}

ext.provider(
  {
    id: "local",
    label: "Local model",
    models: [
      {
        id: "local-echo",
        api_name: "local-echo",
        display_name: "Local echo (offline)",
        protocol: "openai_chat",
        context_window: 4096,
        max_output_tokens: 512,
        capabilities: { tools: false, parallel_tool_calls: false, structured_output: false, reasoning: false },
      },
    ],
  },
  {
    async *stream(request, ctx): AsyncGenerator<ProviderEvent, void, unknown> {
      const child = Bun.spawn([process.execPath, MODEL, promptOf(request.request)], { stdout: "pipe", stderr: "inherit", env: process.env });
      ctx.signal.addEventListener("abort", () => child.kill(), { once: true });
      yield { kind: "started", payload: { response_id: `local-${child.pid}` } };
      yield { kind: "text_start", payload: { index: 0 } };
      let tokens = 0;
      let rest = "";
      for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
        rest += chunk;
        let lf: number;
        while ((lf = rest.indexOf("\n")) !== -1) {
          const token = JSON.parse(rest.slice(0, lf)) as string;
          rest = rest.slice(lf + 1);
          tokens++;
          yield { kind: "text_delta", payload: { index: 0, delta: token } };
        }
      }
      if (ctx.signal.aborted) return;
      yield { kind: "text_end", payload: { index: 0 } };
      yield { kind: "usage", payload: { output_tokens: tokens, total_tokens: tokens } };
      yield { kind: "finished", payload: { stop_reason: "end_turn" } };
    },
  },
);

await ext.run();
