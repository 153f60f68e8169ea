/**
 * Numeric limits of the legacy wire (spec §7). They are defined with the other
 * protocol facts in `src/protocol.ts`; this module re-exports them for the
 * modules that import them from here.
 */
export {
  CANCELLATION_GRACE_MS,
  CANCELLED_REPLY_MS,
  MAX_CHILD_WORKER_REQUESTS,
  MAX_CONCURRENT_REQUESTS,
  MAX_EXTENSION_REQUEST_IDS,
  MAX_MESSAGE_BYTES,
  MAX_OUTSTANDING_EXTENSION_REQUESTS,
  MAX_PENDING_REQUESTS,
  SHUTDOWN_TIMEOUT_MS,
  U64_MAX,
} from "../protocol.ts";
