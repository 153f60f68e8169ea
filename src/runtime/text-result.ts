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
    // Both APIs in one function, their pieces as literals: a property or module constant read only on one API's side
    // never runs, and counts against the function when JSC decides whether it has run enough to optimise
    // (docs/design.md, "Hot functions"). Five pieces: fewer concatenations while the path is not yet compiled.
    const content = this.content;
    const api01 = typeof content === "string";
    const text = api01 ? content : content[0].text;
    const tail = this.is_error
      ? api01 ? ',"is_error":true,"metadata":{}}}\n' : '}],"is_error":true,"metadata":{}}}\n'
      : api01 ? ',"is_error":false,"metadata":{}}}\n' : '}],"is_error":false,"metadata":{}}}\n';
    const head = api01 ? '{"jsonrpc":"2.0","id":' + id + ',"result":{"content":' : '{"jsonrpc":"2.0","id":' + id + ',"result":{"content":[{"type":"text","text":';
    return head + JSON.stringify(text.toWellFormed()) + tail;
  }
}
