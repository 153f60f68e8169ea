/**
 * The host's stderr, drained continuously and kept only as a bounded tail
 * (docs/native-host-protocol.md §15.12). It is never parsed. Secrets of 4 characters or
 * more (registered by the application, a run's key and header values, the
 * credentials in the host's environment) are masked whenever the tail is
 * read; a secret cut by the tail's start is masked too, because the tail
 * keeps a secret's length of extra bytes until it is read.
 */
import type { StderrLines } from "./stderr-lines.ts";

/** The secrets that are masked: those of four characters or more. */
export function maskedSecrets(secrets: Iterable<string>): string[] {
  return [...secrets].filter((secret) => secret.length >= 4);
}

/** `text` with every secret of four characters or more replaced by `[redacted]`. */
export function maskSecrets(text: string, secrets: Iterable<string>): string {
  for (const secret of maskedSecrets(secrets)) text = text.split(secret).join("[redacted]");
  return text;
}

export class StderrTail {
  private chunks: Uint8Array[] = [];
  private size = 0;
  /** Bytes received in total (including those no longer retained). */
  total = 0;
  readonly done: Promise<void>;

  /** `lines`, when given, also receives every chunk (the application's line hook). */
  constructor(
    stream: ReadableStream<Uint8Array>,
    readonly limit: number,
    private readonly secrets: () => Iterable<string>,
    private readonly lines?: StderrLines,
  ) {
    this.done = this.drain(stream);
  }

  /** Bytes held now (at most `limit` plus the longest secret's length). */
  get retained(): number {
    return this.size;
  }

  private async drain(stream: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const chunk of stream) {
        this.add(chunk);
        this.lines?.push(chunk);
      }
    } catch {
      /* the pipe closed */
    }
    this.lines?.end();
  }

  private masked(): string[] {
    return maskedSecrets(this.secrets());
  }

  private add(chunk: Uint8Array): void {
    this.total += chunk.length;
    const keep = this.limit + Math.max(0, ...this.masked().map((s) => Buffer.byteLength(s)));
    if (chunk.length >= keep) {
      this.chunks = [chunk.slice(chunk.length - keep)];
      this.size = keep;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - this.chunks[0]!.length >= keep) this.size -= this.chunks.shift()!.length;
  }

  /** The retained tail (at most `limit` bytes, decoded leniently), with secrets masked. */
  text(): string {
    let text = maskSecrets(new TextDecoder().decode(Buffer.concat(this.chunks)), this.masked());
    // A secret cut by the start of what is kept: mask the suffix that survived.
    for (const secret of this.masked()) {
      for (let cut = secret.length - 1; cut >= 4; cut--) {
        if (text.startsWith(secret.slice(secret.length - cut))) {
          text = "[redacted]" + text.slice(cut);
          break;
        }
      }
    }
    const bytes = Buffer.from(text);
    return bytes.length <= this.limit ? text : new TextDecoder().decode(bytes.subarray(bytes.length - this.limit));
  }
}
