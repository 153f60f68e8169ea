import { ErrorCode, RpcError } from "../errors.ts";
import type { ToolRegistration } from "./registry.ts";
import type { HandlerContext, JsonObject, ToolHandler } from "./types.ts";

/** Longest text part a typed tool's projection may produce. */
const TEXT_PROJECTION_BYTES = 64 * 1024;

/**
 * The tool handler of `ext.typedTool`: the handler's value is sent as
 * `structured_content` (checked against `outputSchema` with every result)
 * and `project(value)`, a string of at most 64 KiB, is its text part;
 * anything else is answered `-32603`.
 */
export function typedToolHandler<Args, Value>(
  definition: ToolRegistration & { outputSchema: JsonObject },
  handler: (args: Args, ctx: HandlerContext) => Value | Promise<Value>,
  project: (value: Value) => string,
): ToolHandler<Args> {
  if (!definition || typeof definition.outputSchema !== "object" || definition.outputSchema === null) throw new Error(`typed tool \`${definition?.name}\` needs an outputSchema`);
  if (typeof handler !== "function" || typeof project !== "function") throw new Error(`typed tool \`${definition.name}\` needs a handler and a text projection`);
  const typed = async (args: Args, ctx: HandlerContext) => {
    const value = await handler(args, ctx);
    const text = project(value);
    if (typeof text !== "string" || Buffer.byteLength(text) > TEXT_PROJECTION_BYTES) {
      throw new RpcError(ErrorCode.InternalError, `typed tool \`${definition.name}\`: the text projection must be a string of at most ${TEXT_PROJECTION_BYTES} bytes`);
    }
    return { content: text, structured_content: value };
  };
  return typed as ToolHandler<Args>;
}
