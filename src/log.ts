/** Log levels of the structured stderr logger (docs/protocol-0.2.md §8.9). */
export type LogLevel = "debug" | "info" | "warning" | "error";

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warning: 30, error: 40 };

/** Where log lines go; the runtime points this at the real stderr. */
export type LineOutput = (line: string) => void;

/**
 * Structured logger: one compact JSON object per stderr line with `level`,
 * `message`, then the caller's fields. Never log secrets.
 *
 * @example
 * ext.log.info("fetched", { url, ms: 12 });
 * // stderr: {"level":"info","message":"fetched","url":"https://…","ms":12}
 */
export class Logger {
  constructor(
    private output: LineOutput,
    private threshold: LogLevel = "info",
  ) {}

  debug(message: string, fields?: Record<string, unknown>): void {
    this.write("debug", message, fields);
  }
  info(message: string, fields?: Record<string, unknown>): void {
    this.write("info", message, fields);
  }
  warning(message: string, fields?: Record<string, unknown>): void {
    this.write("warning", message, fields);
  }
  /** Alias of {@link Logger.warning}. */
  warn(message: string, fields?: Record<string, unknown>): void {
    this.write("warning", message, fields);
  }
  error(message: string, fields?: Record<string, unknown>): void {
    this.write("error", message, fields);
  }

  /** Lowest level written (default `info`). */
  setLevel(level: LogLevel): void {
    this.threshold = level;
  }

  /** Redirect output (used by the runtime when it claims stderr). */
  setOutput(output: LineOutput): void {
    this.output = output;
  }

  write(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
    if (RANK[level] < RANK[this.threshold]) return;
    const record: Record<string, unknown> = { level, message: String(message) };
    if (fields) {
      for (const [key, value] of Object.entries(fields)) {
        if (key === "level" || key === "message") continue;
        record[key] = jsonSafe(value);
      }
    }
    let line: string;
    try {
      line = JSON.stringify(record);
    } catch {
      line = JSON.stringify({ level, message: String(message) });
    }
    this.output(line.includes("\\ud") ? JSON.stringify(record, (_k, v) => (typeof v === "string" ? v.toWellFormed() : v)) : line);
  }
}

function jsonSafe(value: unknown): unknown {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Error) return value.message;
  if (typeof value === "object") {
    try {
      JSON.stringify(value);
      return value;
    } catch {
      return String(value);
    }
  }
  return String(value);
}
