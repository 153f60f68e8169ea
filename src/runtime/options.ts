import type { Logger, LogLevel } from "../log.ts";
import {
  API_VERSIONS,
  CANCELLATION_GRACE_MS,
  CANCELLED_REPLY_MS,
  type Feature,
  isFeature,
  MAX_CONCURRENT_REQUESTS,
  MAX_MESSAGE_BYTES,
  MAX_PENDING_REQUESTS,
  SHUTDOWN_TIMEOUT_MS,
  SUPPORTED_FEATURES,
} from "../protocol.ts";
import type { ApiVersion } from "./types.ts";

/** Frame traffic between two collection requests by default (`garbage-pacer.ts`, docs/performance.md). */
export const GC_PACING_BYTES = 512 * 1024;

/** Construction options; every default matches octet's Python SDK (docs/protocol-0.2.md §8.1). */
export interface ExtensionOptions {
  /** `"0.1"`, `"0.2"`, `"0.4"`, or `"0.3"` (the canonical wire, docs/api-0.3.md). Default: `OCTET_EXTENSION_API_VERSION`, else `"0.1"`. */
  apiVersion?: ApiVersion | "0.3";
  /** Local worker maximum for API 0.2 (default 8; the host's limit may lower it). */
  maxConcurrentRequests?: number;
  /** Admitted-but-unfinished requests before `-32000 queue is full` (default 64). */
  maxPendingRequests?: number;
  /** Frame limit in bytes (default 1 MiB). */
  maxMessageBytes?: number;
  /** Drain budget for shutdown and EOF in ms (default 2000). */
  shutdownTimeoutMs?: number;
  /** Grace after cancelling leftover work at the drain deadline in ms (default 250). */
  cancellationGraceMs?: number;
  /**
   * This SDK only: after a host cancel, answer `-32800` this many ms later if
   * the handler has not stopped, and leave it running in the background
   * (default 1000; octet ends the process 2 s after a cancel with no reply).
   */
  cancelledReplyMs?: number;
  /** Features to accept on API 0.2 and 0.4 (default: all the runtime implements; docs/api-0.4.md "Which optional features are selected"). */
  supportedFeatures?: string[];
  /** Lowest log level written to stderr (default `info`). */
  logLevel?: LogLevel;
  /** Where log lines go instead of stderr (one JSON object per call, without the newline); for embedding and tests. */
  logOutput?: (line: string) => void;
  /**
   * This SDK only (no Python counterpart): traffic in long frames (lines read
   * and frames written of at least 4 KiB, checked after each read) after which
   * the runtime asks Bun for a young-generation collection, keeping peak memory
   * near live data instead of growing with traffic. Default 512 KiB; 0 turns it
   * off. Its cost is capped at 2% of wall time. See docs/performance.md.
   */
  gcPacingBytes?: number;
  /**
   * Log uncaught errors as structured lines, exiting 1 for one raised before
   * `run()` (default true). Turn off when embedding the runtime in another program.
   */
  handleUncaught?: boolean;
}

/** The options the runtime runs with: every default filled in and checked. */
export type ResolvedOptions = Required<Omit<ExtensionOptions, "apiVersion" | "logLevel" | "logOutput" | "handleUncaught" | "supportedFeatures">> & { supportedFeatures: Feature[] };

/** Fill in the defaults and check every value given (plain `Error` naming the option). */
export function resolveOptions(options: ExtensionOptions): ResolvedOptions {
  const supported = options.supportedFeatures === undefined || options.supportedFeatures === null ? SUPPORTED_FEATURES.slice() : checkFeatures(options.supportedFeatures);
  return {
    maxConcurrentRequests: positive("maxConcurrentRequests", options.maxConcurrentRequests, MAX_CONCURRENT_REQUESTS),
    maxPendingRequests: positive("maxPendingRequests", options.maxPendingRequests, MAX_PENDING_REQUESTS),
    maxMessageBytes: positive("maxMessageBytes", options.maxMessageBytes, MAX_MESSAGE_BYTES),
    shutdownTimeoutMs: nonNegative("shutdownTimeoutMs", options.shutdownTimeoutMs, SHUTDOWN_TIMEOUT_MS),
    cancellationGraceMs: nonNegative("cancellationGraceMs", options.cancellationGraceMs, CANCELLATION_GRACE_MS),
    cancelledReplyMs: nonNegative("cancelledReplyMs", options.cancelledReplyMs, CANCELLED_REPLY_MS),
    supportedFeatures: supported,
    gcPacingBytes: nonNegative("gcPacingBytes", options.gcPacingBytes, GC_PACING_BYTES),
  };
}

function checkFeatures(supported: string[]): Feature[] {
  const unknown: string[] = [];
  for (const feature of supported) if (!isFeature(feature)) unknown.push(feature);
  if (unknown.length > 0) throw new Error(`supportedFeatures names features this runtime does not implement: ${unknown.map((f) => JSON.stringify(f)).join(", ")}`);
  return supported as Feature[];
}

/** The API version: explicit, else `OCTET_EXTENSION_API_VERSION`, else 0.1 (an unknown one is logged). */
export function resolveApiVersion(explicit: string | undefined, log: Logger): ApiVersion {
  if (explicit !== undefined) {
    if (!isApiVersion(explicit)) throw new Error(`unsupported extension API version ${JSON.stringify(explicit)}; use ${API_VERSIONS.map((v) => `"${v}"`).join(", ")}`);
    return explicit;
  }
  const env = process.env.OCTET_EXTENSION_API_VERSION;
  if (env === undefined || env === "") return "0.1";
  if (isApiVersion(env)) return env;
  log.warning("unsupported OCTET_EXTENSION_API_VERSION; speaking API 0.1", { requested: env });
  return "0.1";
}

function isApiVersion(value: string): value is ApiVersion {
  return (API_VERSIONS as readonly string[]).includes(value);
}

// Defaults are taken as they are: only a value the author passed is checked.
function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a finite non-negative number`);
  return value;
}
