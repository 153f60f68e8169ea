/**
 * The host's stderr, drained continuously and kept only as a bounded tail
 * (spec native-host §15.12). It is never parsed. Secrets the application
 * registered are masked whenever the tail is read.
 */
export class StderrTail {
  private chunks: Uint8Array[] = [];
  private size = 0;
  /** Bytes received in total (including those no longer retained). */
  total = 0;
  readonly done: Promise<void>;

  constructor(
    stream: ReadableStream<Uint8Array>,
    readonly limit: number,
    private readonly secrets: () => Iterable<string>,
  ) {
    this.done = this.drain(stream);
  }

  private async drain(stream: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const chunk of stream) this.add(chunk);
    } catch {
      /* the pipe closed */
    }
  }

  private add(chunk: Uint8Array): void {
    this.total += chunk.length;
    if (chunk.length >= this.limit) {
      this.chunks = [chunk.slice(chunk.length - this.limit)];
      this.size = this.limit;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - this.chunks[0]!.length >= this.limit) this.size -= this.chunks.shift()!.length;
  }

  /** The retained tail (at most `limit` bytes, decoded leniently), with secrets masked. */
  text(): string {
    let text = new TextDecoder().decode(Buffer.concat(this.chunks).subarray(Math.max(0, this.size - this.limit)));
    for (const secret of this.secrets()) if (secret.length >= 4) text = text.split(secret).join("[redacted]");
    return text;
  }
}
