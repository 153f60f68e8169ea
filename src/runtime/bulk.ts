/**
 * Immutable bulk objects (`bulk_objects_v1`, API 0.4; docs/api-0.4.md "Bulk
 * objects"): bytes too large for a frame travel through files octet creates
 * in a private transfer directory (profile `local-file.v1`), and a `BlobRef`
 * names them in arguments and results. The transfer directory must be the
 * runtime's own and private, and is held open from initialize on
 * (`TransferDirectory`); the runtime opens only the file the host named, as
 * a single path component relative to that handle, without following
 * symlinks, and only a regular file with one link; it checks sizes and
 * SHA-256 digests and always releases the ticket or lease.
 */
import { isObject } from "../check.ts";
import { ErrorCode, RpcError } from "../errors.ts";
import type { HostAccess } from "./host-session.ts";
import { TransferDirectory } from "./transfer-directory.ts";
import type { JsonObject } from "./types.ts";

/** A committed blob: `{"$blob", bytes, digest: {algorithm: "sha256", value}, media_type}`. */
export interface BlobRef {
  $blob: string;
  bytes: number;
  digest: { algorithm: "sha256"; value: string };
  media_type: string;
}

/** The host's `protocol.bulk_objects_v1` offer, accepted: `directory` is its transfer directory, held open. */
export interface BulkOffer {
  profile: "local-file.v1";
  transfer_directory: string;
  limits: { object_bytes: number; owner_bytes: number; write_tickets_per_generation: number; read_leases_per_generation: number; blobs_per_owner: number };
  directory: TransferDirectory;
}

const PROFILE = "local-file.v1";
const LIMIT_KEYS = ["object_bytes", "owner_bytes", "write_tickets_per_generation", "read_leases_per_generation", "blobs_per_owner"] as const;
const SHA256 = /^[0-9a-f]{64}$/;
const MEDIA_TYPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:\s*;\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+=(?:[!#$%&'*+.^_`|~0-9A-Za-z-]+|"[^"\\\x00-\x1f\x7f]*"))*$/;
/** A locator is one path component: graphic ASCII, no separators or drive colons, not `.` or `..`. */
const LOCATOR = /^[!-~]{1,255}$/;

const invalidReply = (method: string) => new RpcError(ErrorCode.InternalError, `invalid ${method} response`);
const fs = (): typeof import("node:fs") => require("node:fs");

/**
 * The offer, checked, with its transfer directory opened; or why this runtime
 * cannot use it (not a `local-file.v1` offer, or a directory that is not a
 * private one of this user's: see {@link TransferDirectory.open}).
 */
export function acceptBulkOffer(value: unknown): { offer: BulkOffer } | { refused: string } {
  if (!isObject(value) || value.profile !== PROFILE || typeof value.transfer_directory !== "string") return { refused: "the offer is not a local-file.v1 offer" };
  const limits = value.limits;
  if (!isObject(limits) || LIMIT_KEYS.some((key) => !Number.isSafeInteger(limits[key]) || (limits[key] as number) <= 0)) return { refused: "the offer's limits are not positive integers" };
  let directory: ReturnType<typeof TransferDirectory.open>;
  try {
    directory = TransferDirectory.open(value.transfer_directory);
  } catch (error) {
    return { refused: `cannot examine it (${(error as { code?: string }).code ?? "error"})` };
  }
  if (!(directory instanceof TransferDirectory)) return directory;
  return { offer: { profile: PROFILE, transfer_directory: value.transfer_directory, limits: limits as BulkOffer["limits"], directory } };
}

/** Whether `value` is a well-formed BlobRef. */
export function isBlobRef(value: unknown): value is BlobRef {
  if (!isObject(value) || Object.keys(value).length !== 4) return false;
  const { $blob: id, bytes, digest, media_type: mediaType } = value;
  return (
    typeof id === "string" &&
    id.length >= 1 &&
    id.length <= 128 &&
    Number.isSafeInteger(bytes) &&
    (bytes as number) >= 0 &&
    isObject(digest) &&
    Object.keys(digest).length === 2 &&
    digest.algorithm === "sha256" &&
    typeof digest.value === "string" &&
    SHA256.test(digest.value) &&
    typeof mediaType === "string" &&
    mediaType.length <= 255 &&
    MEDIA_TYPE.test(mediaType)
  );
}

/** The closed JSON Schema of a BlobRef, for `parameters` and `outputSchema`. */
export const BLOB_SCHEMA: JsonObject = {
  type: "object",
  properties: {
    $blob: { type: "string", minLength: 1, maxLength: 128 },
    bytes: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    digest: {
      type: "object",
      properties: { algorithm: { type: "string", enum: ["sha256"] }, value: { type: "string", minLength: 64, maxLength: 64 } },
      required: ["algorithm", "value"],
      additionalProperties: false,
    },
    media_type: { type: "string", minLength: 1, maxLength: 255 },
  },
  required: ["$blob", "bytes", "digest", "media_type"],
  additionalProperties: false,
};

/** Sends one bulk request under the calling tool call (`detached`: not cancelled with it, for releases). */
export type BulkSend = (method: BulkMethod, params: JsonObject, detached?: boolean) => Promise<unknown>;
type BulkMethod = "bulk/write" | "bulk/commit" | "bulk/read" | "bulk/release";

/** `ext.bulk.publish`: `data` into a host transfer file, committed; resolves to its provisional BlobRef. */
export function publish(access: HostAccess, data: Uint8Array | string, mediaType: string): Promise<BlobRef> {
  return withBulk(access, "ext.bulk.publish()", (offer, send) => publishBlob(offer, send, typeof data === "string" ? new TextEncoder().encode(data) : data, mediaType));
}

/** `ext.bulk.read`: a blob's verified bytes, at most `maxBytes`. */
export function read(access: HostAccess, ref: BlobRef, options: { maxBytes: number }): Promise<Uint8Array> {
  return withBulk(access, "ext.bulk.read()", (offer, send) => readBlob(offer, send, ref, options?.maxBytes));
}

/** Gate a bulk operation (initialized, `bulk_objects_v1`, inside a tool call) and give it a sender under that call. */
function withBulk<T>(access: HostAccess, call: string, run: (offer: BulkOffer, send: BulkSend) => Promise<T>): Promise<T> {
  try {
    const host = access.session();
    host.requireFeature("bulk_objects_v1", call);
    const scope = access.caller();
    if (scope?.method !== "tool/call") throw new Error("bulk objects are used from a tool handler (octet requires a live tool/call parent)");
    const parent = host.parent(scope);
    const send: BulkSend = (method, params, detached) => host.request(method, { ...params, parent_request_id: parent }, call, scope, { parent: "none", detached });
    return run(host.negotiated.bulk!, send);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Write `data` into a fresh host file and commit it: resolves to the
 * provisional BlobRef, which becomes usable once the calling tool call
 * succeeds with it in its result. The ticket is released on any failure.
 */
export async function publishBlob(offer: BulkOffer, send: BulkSend, data: Uint8Array, mediaType: string): Promise<BlobRef> {
  if (!(data instanceof Uint8Array)) throw new Error("blob data must be bytes (a Uint8Array or a string)");
  if (typeof mediaType !== "string" || mediaType.length > 255 || !MEDIA_TYPE.test(mediaType)) throw new Error(`${JSON.stringify(mediaType)} is not a media type`);
  if (data.length > offer.limits.object_bytes) throw new Error(`blob of ${data.length} bytes exceeds the host's ${offer.limits.object_bytes}-byte object limit`);
  const ticket = await send("bulk/write", { profile: PROFILE, capacity: data.length, media_type: mediaType });
  if (!isObject(ticket) || typeof ticket.ticket !== "string" || ticket.profile !== PROFILE || typeof ticket.locator !== "string" || ticket.capacity !== data.length) throw invalidReply("bulk/write");
  let committed = false;
  try {
    writeTransferFile(offer, ticket.locator, data);
    const digest = new Bun.CryptoHasher("sha256").update(data).digest("hex");
    const ref = await send("bulk/commit", { ticket: ticket.ticket, bytes: data.length, digest: { algorithm: "sha256", value: digest } });
    committed = true;
    if (!isBlobRef(ref) || ref.bytes !== data.length || ref.digest.value !== digest || ref.media_type !== mediaType) throw invalidReply("bulk/commit");
    return ref;
  } finally {
    // A committed ticket is consumed by the host; any other is given back.
    if (!committed) await send("bulk/release", { id: ticket.ticket }, true).catch(() => {});
  }
}

/**
 * Read a blob's bytes through a read lease: at most `maxBytes`, verified
 * against the reference's size and SHA-256 before they are returned. The
 * lease is always released.
 */
export async function readBlob(offer: BulkOffer, send: BulkSend, ref: BlobRef, maxBytes: number): Promise<Uint8Array> {
  if (!isBlobRef(ref)) throw new Error("not a BlobRef");
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) throw new Error("maxBytes must be a non-negative safe integer");
  if (ref.bytes > maxBytes) throw new Error(`blob of ${ref.bytes} bytes exceeds maxBytes ${maxBytes}`);
  const lease = await send("bulk/read", { profile: PROFILE, blob: ref });
  if (!isObject(lease) || typeof lease.lease !== "string") throw invalidReply("bulk/read");
  try {
    if (lease.profile !== PROFILE || typeof lease.locator !== "string" || lease.bytes !== ref.bytes) throw invalidReply("bulk/read");
    const data = readTransferFile(offer, lease.locator, ref.bytes);
    if (new Bun.CryptoHasher("sha256").update(data).digest("hex") !== ref.digest.value) throw new RpcError(ErrorCode.ServerError, "integrity_mismatch: blob bytes do not match their digest");
    return data;
  } finally {
    await send("bulk/release", { id: lease.lease }, true).catch(() => {});
  }
}

/** Open the host's file `locator` in the transfer directory (relative to its handle), never following a symlink. */
function openTransferFile(offer: BulkOffer, locator: string, write: boolean): number {
  // Messages never name the locator or the directory: octet refuses a result that contains either.
  if (!LOCATOR.test(locator) || locator === "." || locator === ".." || /[/\\:]/.test(locator)) throw new RpcError(ErrorCode.ServerError, "refusing the transfer locator: not one plain file name");
  const { constants } = fs();
  const flags = (write ? constants.O_WRONLY : constants.O_RDONLY) | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  let fd: number;
  try {
    fd = offer.directory.openEntry(locator, flags);
  } catch (error) {
    throw new RpcError(ErrorCode.ServerError, `storage_unavailable: cannot open the transfer file (${(error as Error).message})`);
  }
  const stat = fs().fstatSync(fd);
  if (!stat.isFile() || stat.nlink !== 1) {
    fs().closeSync(fd);
    throw new RpcError(ErrorCode.ServerError, "refusing the transfer file: not a regular file with exactly one link");
  }
  return fd;
}

function writeTransferFile(offer: BulkOffer, locator: string, data: Uint8Array): void {
  const fd = openTransferFile(offer, locator, true);
  try {
    fs().ftruncateSync(fd, 0);
    for (let offset = 0; offset < data.length; ) offset += fs().writeSync(fd, data, offset, data.length - offset);
    fs().fsyncSync(fd);
  } finally {
    fs().closeSync(fd);
  }
}

function readTransferFile(offer: BulkOffer, locator: string, bytes: number): Uint8Array {
  const fd = openTransferFile(offer, locator, false);
  try {
    if (fs().fstatSync(fd).size !== bytes) throw new RpcError(ErrorCode.ServerError, "size_mismatch: the transfer file does not hold the blob's size");
    const data = new Uint8Array(bytes);
    for (let offset = 0; offset < bytes; ) {
      const n = fs().readSync(fd, data, offset, bytes - offset, offset);
      if (n === 0) throw new RpcError(ErrorCode.ServerError, "size_mismatch: the transfer file ended early");
      offset += n;
    }
    return data;
  } finally {
    fs().closeSync(fd);
  }
}
