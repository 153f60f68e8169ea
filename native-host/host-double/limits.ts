/**
 * Byte limits of protocol 1 that several parts of the double share (spec
 * docs/native-host-protocol.md §3): the frame limit in both directions and the bounds of
 * the text fields the host clips inside events.
 */

/** Frame limit in bytes, including the terminating LF (`hello.max_frame_bytes`). */
export const MAX_FRAME_BYTES = 1_048_576;

/** Longest event line the host writes, without its LF. */
export const MAX_EVENT_BYTES = MAX_FRAME_BYTES - 1;

/** `model_delta.text` per delta. */
export const MODEL_DELTA_MAX_BYTES = 64 * 1024;

/** `final_result.output` and `final_result.error`. */
export const FINAL_TEXT_MAX_BYTES = 256 * 1024;
