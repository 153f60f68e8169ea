import { utf8Bytes } from "../check.ts";
import { ErrorCode, type RpcError, errorText } from "../errors.ts";
import type { Logger } from "../log.ts";
import { FrameEncodeError, type WireLine, encodeWireFrame } from "../wire/encode.ts";
import type { FrameWriter } from "../wire/frame-writer.ts";
import { type RequestId, wireId } from "../wire/ids.ts";
import { TextResult } from "./text-result.ts";
import type { JsonObject } from "./types.ts";

/** What a request is answered with. */
export type Outcome = { result: unknown } | { error: RpcError };

const JSONRPC = "2.0";

/**
 * The runtime's replies to the host: each is encoded and measured whole
 * (`wire/encode.ts`) and handed to the one `FrameWriter`. A result that
 * cannot be encoded is answered `-32603` instead (never `-32800`).
 */
export class Replies {
  constructor(
    private readonly writer: FrameWriter,
    private readonly logger: Logger,
    private readonly maxMessageBytes: number,
  ) {}

  /** Queue the reply to `id`; false when the outcome could not be encoded (`-32603` was queued instead). */
  write(id: RequestId, outcome: Outcome): boolean {
    // A text-only tool result (most replies; a 512 KiB echo among them) is written without the general walk.
    if (typeof id === "number" && "result" in outcome && outcome.result instanceof TextResult) {
      const line = outcome.result.replyLine(id);
      // `utf8Bytes`, not `Buffer` here: a function naming `Buffer` initialises it on its first call (~120 page faults before the initialize reply).
      if (line.length * 3 <= this.maxMessageBytes || utf8Bytes(line) <= this.maxMessageBytes) {
        this.writer.send(line);
        return true;
      }
    }
    return this.writeEncoded(id, outcome);
  }

  /** Any other reply (out of line: `write` runs per request, and the JIT compiles what it holds). */
  private writeEncoded(id: RequestId, outcome: Outcome): boolean {
    const frame: JsonObject = { jsonrpc: JSONRPC, id: wireId(id) };
    if ("result" in outcome) frame.result = outcome.result;
    else frame.error = outcome.error.toJSON();
    let line: WireLine;
    let encoded = true;
    try {
      line = encodeWireFrame(frame, this.maxMessageBytes);
    } catch (error) {
      const message = error instanceof FrameEncodeError ? error.message : `cannot serialize JSON-RPC message: ${errorText(error)}`;
      this.logger.error("request failed", { code: ErrorCode.InternalError, error: message });
      encoded = false;
      line = encodeWireFrame({ jsonrpc: JSONRPC, id: wireId(id), error: { code: ErrorCode.InternalError, message } }, this.maxMessageBytes);
    }
    this.writer.send(line);
    return encoded;
  }

  /** Answer input that cannot be routed; the id is `null` unless one could be echoed. */
  reject(code: number, message: string, echo: unknown = null): void {
    this.logger.error("invalid protocol input", { code, error: message });
    this.writer.send(encodeWireFrame({ jsonrpc: JSONRPC, id: echo, error: { code, message } }, this.maxMessageBytes));
  }
}
