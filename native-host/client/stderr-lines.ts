/**
 * The host's stderr cut into lines for the application's logger
 * (`LaunchOptions.onStderrLine`). stderr is free text, never protocol (spec
 * docs/native-host-protocol.md §15.12): lines are decoded leniently, delivered without their
 * line end (LF, or CRLF), with secrets masked, and bounded: a line longer
 * than `maxBytes` arrives in pieces of at most `maxBytes` bytes (cut on a
 * character boundary), so a flood without newlines never grows a buffer. A
 * piece never ends inside a secret: the buffer holds the longest secret's
 * length less one byte beyond `maxBytes`, so a secret crossing the cut is
 * seen whole and the cut moves before it. A last line without a line end is
 * delivered when stderr ends. An exception thrown by `deliver` is ignored: a
 * logger never breaks the host's draining.
 */
import { maskSecrets, maskedSecrets } from "./stderr-tail.ts";

const LF = 0x0a;
const CR = 0x0d;

export class StderrLines {
  private parts: Uint8Array[] = [];
  private size = 0;
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly maxBytes: number,
    private readonly deliver: (line: string) => void,
    private readonly secrets: () => Iterable<string> = () => [],
  ) {}

  push(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      const lf = chunk.indexOf(LF, start);
      this.append(chunk.subarray(start, lf === -1 ? chunk.length : lf));
      if (lf === -1) return;
      this.flush(true);
      start = lf + 1;
    }
  }

  /** stderr ended: deliver what is left of an unterminated line. */
  end(): void {
    if (this.size > 0) this.flush(false);
  }

  private append(bytes: Uint8Array): void {
    const secrets = this.secretBytes();
    const limit = this.maxBytes + Math.max(0, ...secrets.map((s) => s.length - 1));
    while (bytes.length > 0) {
      const take = Math.min(bytes.length, Math.max(1, limit + 1 - this.size));
      this.keep(bytes.subarray(0, take));
      bytes = bytes.subarray(take);
      if (this.size > limit) this.cut(secrets);
    }
  }

  private keep(bytes: Uint8Array): void {
    this.parts.push(bytes.slice());
    this.size += bytes.length;
  }

  /** Deliver the first piece of the buffer (at most `maxBytes`, unless a secret longer than that starts it) and keep the rest. */
  private cut(secrets: Uint8Array[]): void {
    const buffer = Buffer.concat(this.parts);
    // Do not cut a UTF-8 sequence: back off over continuation bytes (unless nothing would be left).
    let at = this.maxBytes;
    while (at > 0 && ((buffer[at] ?? 0) & 0xc0) === 0x80) at--;
    if (at === 0) at = this.maxBytes;
    at = cutOutsideSecrets(buffer, at, secrets);
    this.parts = [buffer.subarray(at)];
    this.size = buffer.length - at;
    this.send(buffer.subarray(0, at));
  }

  private flush(lineEnd: boolean): void {
    const secrets = this.secretBytes();
    while (this.size > this.maxBytes) this.cut(secrets);
    let line = Buffer.concat(this.parts);
    this.parts = [];
    this.size = 0;
    if (lineEnd && line[line.length - 1] === CR) line = line.subarray(0, -1);
    this.send(line);
  }

  private send(bytes: Uint8Array): void {
    try {
      this.deliver(maskSecrets(this.decoder.decode(bytes), this.secrets()));
    } catch {
      /* the application's logger failed; draining goes on */
    }
  }

  private secretBytes(): Uint8Array[] {
    return maskedSecrets(this.secrets()).map((secret) => Buffer.from(secret));
  }
}

/**
 * `at`, moved back to the start of any secret that crosses it (repeatedly:
 * secrets may overlap); a secret that starts the buffer and crosses it is
 * kept whole in the piece instead.
 */
function cutOutsideSecrets(buffer: Buffer, at: number, secrets: Uint8Array[]): number {
  for (let moved = true; moved; ) {
    moved = false;
    for (const secret of secrets) {
      const found = buffer.indexOf(secret, Math.max(0, at - secret.length + 1));
      if (found === -1 || found >= at) continue;
      if (found === 0) return secret.length;
      at = found;
      moved = true;
    }
  }
  return at;
}
