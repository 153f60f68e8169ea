import { EventEmitter } from "node:events";

/**
 * The terminal stream readline draws on, which can be muted: while a secret
 * is typed nothing readline writes (echo, redraws, cursor moves) reaches the
 * terminal. Width, height and resizes are the real terminal's.
 */
export class MutableOutput extends EventEmitter {
  muted = false;
  readonly isTTY = true;

  constructor(private readonly target: NodeJS.WritableStream) {
    super();
    target.on("resize", () => this.emit("resize"));
  }

  get columns(): number | undefined {
    return (this.target as { columns?: number }).columns;
  }

  get rows(): number | undefined {
    return (this.target as { rows?: number }).rows;
  }

  write(chunk: string | Uint8Array, ...rest: unknown[]): boolean {
    const done = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    if (!this.muted) return this.target.write(chunk, done);
    done?.();
    return true;
  }
}
