/**
 * A tool result that is only text: one text part on API 0.2/0.4, a string on API 0.1, with
 * `is_error` and empty `metadata` (docs/protocol-0.2.md §3.2, §8.6). Most handlers return one. Its
 * own class so that `Replies` writes it with one `JSON.stringify` of the text, without the general
 * encoder's scans of the whole frame (issue 28: the 512 KiB echo).
 */
export class TextResult {
  readonly content: string | readonly [{ readonly type: "text"; readonly text: string }];
  readonly is_error: boolean;
  readonly metadata: Readonly<Record<string, never>> = {};

  constructor(text: string, isError: boolean, api01: boolean) {
    this.content = api01 ? text : [{ type: "text", text }];
    this.is_error = isError;
  }

  /** The reply to request `id` carrying this result: the same text `encodeWireFrame` writes. */
  replyLine(id: number): string {
    const content = this.content;
    const text = JSON.stringify((typeof content === "string" ? content : content[0].text).toWellFormed());
    const wire = typeof content === "string" ? text : `[{"type":"text","text":${text}}]`;
    return `{"jsonrpc":"2.0","id":${id},"result":{"content":${wire},"is_error":${this.is_error},"metadata":{}}}\n`;
  }
}
