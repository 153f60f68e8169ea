/**
 * Port of octet's `typescript-hello` example (API 0.4): one local tool,
 * `text_stats`, with a real input schema, progress where the host offers it
 * and an optional cancellable delay for trying cancellation by hand.
 */
import { Extension } from "octet-extension";

const ext = new Extension({ maxConcurrentRequests: 2 });

ext.tool(
  {
    name: "text_stats",
    description: "Count characters, words, lines and UTF-8 bytes in supplied text locally",
    parameters: {
      type: "object",
      properties: {
        text: { type: "string", maxLength: 65_536 },
        delayMs: { type: "integer", minimum: 0, maximum: 2000, description: "Optional cancellable delay for local testing" },
      },
      required: ["text"],
      additionalProperties: false,
    },
    promptSnippet: "text_stats: exact character, word, line and UTF-8 byte counts of a text",
  },
  async (args: { text: string; delayMs?: number }, ctx) => {
    ctx.cancellation.throwIfCancelled();
    if (ext.negotiatedFeatures.has("request_progress")) await ext.progress("Counting supplied text");
    await ctx.cancellation.sleep(args.delayMs ?? 0);
    const { text } = args;
    const trimmed = text.trim();
    const words = trimmed === "" ? 0 : trimmed.split(/\s+/u).length;
    const lines = text === "" ? 0 : text.split(/\r\n|\r|\n/u).length;
    return `characters=${[...text].length} words=${words} lines=${lines} utf8_bytes=${Buffer.byteLength(text)}`;
  },
);

await ext.run();
