/**
 * The bytes of a line as one array (copies only when it spans several chunks), written into
 * `buffer` when it is large enough (the result is then a view of it, valid until its next use).
 */
export function lineBytes(parts: Uint8Array[], buffer?: Uint8Array): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  if (parts.length === 0) return new Uint8Array(0);
  let size = 0;
  for (const part of parts) size += part.length;
  const out = buffer !== undefined && buffer.length >= size ? buffer.subarray(0, size) : new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
