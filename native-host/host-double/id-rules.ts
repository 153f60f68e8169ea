/**
 * Identifier rules (docs/native-host-protocol.md §4, seed 002): request, run and session
 * ids — and an inline `provider` label — are 1–128 bytes of ASCII letters,
 * digits, `-`, `_`, `.` and `:`.
 *
 * The seed's text allows `:` in session ids; the digest reports that the
 * octet code rejects it. The double follows the seed (accepts `:`).
 */

const ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

export function isValidId(id: string): boolean {
  return ID_PATTERN.test(id);
}

/** The request_id the host uses for errors it cannot attribute to a request. */
export const INVALID_REQUEST_ID = "invalid";
