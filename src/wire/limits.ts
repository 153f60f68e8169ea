/** Numeric limits of the legacy wire (spec §7). */

/** Frame limit: inbound content ≤ this; outbound content + LF ≤ this (spec §1.2). */
export const MAX_MESSAGE_BYTES = 1_048_576;
/** Admitted-but-unfinished requests (running + queued) (spec §8.10). */
export const MAX_PENDING_REQUESTS = 64;
/** Local worker maximum for API 0.2 (spec §8.1). */
export const MAX_CONCURRENT_REQUESTS = 8;
/** Drain budget on shutdown and EOF, milliseconds (spec §1.7, §8.8). */
export const SHUTDOWN_TIMEOUT_MS = 2_000;
/** Grace after cancelling remaining work at the drain deadline, milliseconds. */
export const CANCELLATION_GRACE_MS = 250;
/** Outstanding extension→host requests the host tolerates (spec §1.4). */
export const MAX_OUTSTANDING_EXTENSION_REQUESTS = 128;
/**
 * Extension→host requests the host serves with one of its child workers
 * (`confirmation/request`, `input/request`, `artifact/publish`, `secret/get`,
 * `agent/*`) outstanding at once; beyond it octet fails the request or, for
 * the first three, the connection (spec §1.9, §7).
 */
export const MAX_CHILD_WORKER_REQUESTS = 8;
/** Distinct extension request ids per process generation (spec §1.4). */
export const MAX_EXTENSION_REQUEST_IDS = 65_536;
/** Largest unsigned 64-bit integer. */
export const U64_MAX = 18446744073709551615n;

/**
 * After a host `$/cancelRequest`, a request still unanswered this long is
 * answered `-32800` and its handler left running: octet terminates the whole
 * process when no reply arrives within 2 s of a cancel (spec §3.9).
 */
export const CANCELLED_REPLY_MS = 1_000;
