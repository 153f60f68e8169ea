/** The record of every line both ways, its queries, and waits for extension frames. */
import type { JsonRecord } from "../check.ts";

/** One recorded frame. */
export interface TranscriptEntry {
  from: "host" | "extension";
  /** The line as written, without LF. */
  text: string;
  /** Parsed frame (undefined for lines that were not JSON). */
  frame?: JsonRecord;
}

interface FrameWaiter {
  predicate: (entry: TranscriptEntry) => boolean;
  resolve: (entry: TranscriptEntry) => void;
  reject: (error: unknown) => void;
}

/** Every line in order, and the waits for extension frames still to come. */
export class Transcript {
  readonly entries: TranscriptEntry[] = [];
  private waiters: FrameWaiter[] = [];

  /** Called with every entry as it is recorded (both directions). */
  private listeners: ((entry: TranscriptEntry) => void)[] = [];

  record(entry: TranscriptEntry): void {
    this.entries.push(entry);
    for (const listener of this.listeners) listener(entry);
  }

  /** Call `listener` for every entry from now on. */
  listen(listener: (entry: TranscriptEntry) => void): void {
    this.listeners.push(listener);
  }

  /** Settle the waits a handled extension entry matches; a predicate that throws rejects its own wait. */
  release(entry: TranscriptEntry): void {
    for (const waiter of [...this.waiters]) {
      let matched: boolean;
      try {
        matched = waiter.predicate(entry);
      } catch (error) {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        waiter.reject(error);
        continue;
      }
      if (matched) {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        waiter.resolve(entry);
      }
    }
  }

  /** An extension frame matching `predicate`, already recorded or still to come. */
  waitForFrame(predicate: (frame: JsonRecord) => boolean, timeoutMs: number): Promise<JsonRecord> {
    try {
      const seen = this.entries.find((e) => e.from === "extension" && e.frame && predicate(e.frame));
      if (seen) return Promise.resolve(seen.frame!);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      const waiter: FrameWaiter = {
        predicate: (e) => e.from === "extension" && e.frame !== undefined && predicate(e.frame),
        resolve: (e) => {
          clearTimeout(timer);
          resolve(e.frame!);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`no matching extension frame within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** The reply with this id (of any JSON type, big integers included). */
  waitForReply(id: unknown, timeoutMs: number): Promise<JsonRecord> {
    const key = idKey(id);
    return this.waitForFrame((f) => !("method" in f) && idKey(f.id) === key, timeoutMs);
  }

  /** Frames the extension wrote, parsed. */
  extensionFrames(): JsonRecord[] {
    return this.entries.filter((e) => e.from === "extension" && e.frame).map((e) => e.frame!);
  }

  /** Notifications the extension sent, optionally of one method. */
  notifications(method?: string): JsonRecord[] {
    return this.extensionFrames().filter((f) => "method" in f && !("id" in f) && (method === undefined || f.method === method));
  }
}

/** Compares ids of any JSON type, big integers (`bigint`) included. */
function idKey(id: unknown): string {
  return typeof id === "bigint" ? id.toString() : JSON.stringify(id);
}
