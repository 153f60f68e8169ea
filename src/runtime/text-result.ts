/**
 * A tool result that is only text: one text part on API 0.2/0.4, a string on API 0.1, with
 * `is_error` and empty `metadata` (docs/protocol-0.2.md §3.2, §8.6). Most handlers return one. Its
 * own class so that `Replies` writes it with one `JSON.stringify` of the text, without the general
 * encoder's scans of the whole frame (issue 28: the 512 KiB echo).
 */
export class TextResult {
  declare readonly content: string | readonly [{ readonly type: "text"; readonly text: string }];
  declare readonly is_error: boolean;
  declare readonly metadata: Readonly<Record<string, never>>;

  // Assigned here rather than as class fields: one is made per reply (see `CancellationToken`).
  constructor(text: string, isError: boolean, api01: boolean) {
    this.content = api01 ? text : [{ type: "text", text }];
    this.is_error = isError;
    this.metadata = {};
  }

  /** The reply to request `id` carrying this result: the same text `encodeWireFrame` writes. */
  replyLine(id: number): string {
    const content = this.content;
    // One function per API: a session takes only one of them, so each is profiled whole (docs/design.md, "Hot functions").
    return typeof content === "string" ? replyLine01(id, content, this.is_error) : replyLine02(id, content[0].text, this.is_error);
  }
}

// Five pieces, three of them constants: fewer concatenations while the request path is not yet compiled.
function replyLine01(id: number, text: string, isError: boolean): string {
  return REPLY_HEAD + id + CONTENT_01 + JSON.stringify(text.toWellFormed()) + (isError ? TAIL_01_ERROR : TAIL_01);
}

function replyLine02(id: number, text: string, isError: boolean): string {
  return REPLY_HEAD + id + CONTENT_02 + JSON.stringify(text.toWellFormed()) + (isError ? TAIL_02_ERROR : TAIL_02);
}

const REPLY_HEAD = '{"jsonrpc":"2.0","id":';
const CONTENT_01 = ',"result":{"content":';
const CONTENT_02 = ',"result":{"content":[{"type":"text","text":';
const TAIL_01 = ',"is_error":false,"metadata":{}}}\n';
const TAIL_01_ERROR = ',"is_error":true,"metadata":{}}}\n';
const TAIL_02 = '}],"is_error":false,"metadata":{}}}\n';
const TAIL_02_ERROR = '}],"is_error":true,"metadata":{}}}\n';
