/**
 * Identifier rules of protocol 1 (docs/native-host-protocol.md §4): `A–Z a–z 0–9 - _ . :`,
 * 1–128 bytes. The seed (octet 0.8.0 docs) allows `:` in session ids too, but
 * octet's host code rejects it there (the id names a file), so the client
 * sends only what both accept and refuses `:` in a session id locally; see
 * docs/native-host.md.
 */

const ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Whether `value` is a valid request, run or session id. */
export function isValidId(value: unknown): value is string {
  return typeof value === "string" && ID.test(value);
}

const SESSION_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Why `value` is not a session id octet's host accepts, or undefined when it is. */
export function checkSessionId(value: unknown): string | undefined {
  if (typeof value === "string" && SESSION_ID.test(value)) return undefined;
  if (typeof value === "string" && value.includes(":") && isValidId(value)) {
    return `session_id must not contain ':' (got ${describe(value)}): octet's host rejects it (the id names the session file); use A-Z a-z 0-9 - _ .`;
  }
  return `session_id must be 1-128 characters of A-Z a-z 0-9 - _ . (got ${describe(value)})`;
}

/** Why `value` is not a valid id, or undefined when it is. */
export function checkId(value: unknown, what: string): string | undefined {
  if (isValidId(value)) return undefined;
  return `${what} must be 1-128 characters of A-Z a-z 0-9 - _ . : (got ${describe(value)})`;
}

function describe(value: unknown): string {
  if (typeof value !== "string") return typeof value;
  return value.length > 40 ? `${JSON.stringify(value.slice(0, 40))}… (${Buffer.byteLength(value)} bytes)` : JSON.stringify(value);
}

/** A model id: non-empty, no surrounding whitespace, ≤ 512 bytes, no control characters. */
export function checkModelId(value: unknown): string | undefined {
  if (typeof value !== "string" || value === "" || value.trim() !== value || Buffer.byteLength(value) > 512 || hasControl(value)) {
    return "model must be non-empty, at most 512 bytes, without surrounding whitespace or control characters";
  }
  return undefined;
}

/** Whether `text` holds a control character other than those in `allowed`. */
export function hasControl(text: string, allowed = ""): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 || (c >= 0x7f && c <= 0x9f)) && !allowed.includes(text[i]!)) return true;
  }
  return false;
}
