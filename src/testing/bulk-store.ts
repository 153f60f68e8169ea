/**
 * The test host's side of `bulk_objects_v1` (`local-file.v1`; docs/api-0.4.md
 * "Bulk objects"), as octet keeps it: a private transfer directory where the
 * host creates every file itself (exclusive, mode 0600, a random flat name),
 * commits that check size and SHA-256 and copy the bytes away, read leases
 * on fresh copies, and releases that delete the file. Blobs live in memory.
 */
import type { JsonRecord } from "../check.ts";
import { closeSync, constants, fstatSync, openSync, readSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { temporaryDirectory } from "./temp-dirs.ts";

/** octet's default bulk limits. */
export const BULK_LIMITS = { object_bytes: 268_435_456, owner_bytes: 536_870_912, write_tickets_per_generation: 8, read_leases_per_generation: 32, blobs_per_owner: 256 };

/** A refusal as octet words it: `-32000`, the code name as message and in data. */
export class BulkRefusal extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

const hex = (bytes: number) => [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");

export class HostBulkStore {
  readonly directory = temporaryDirectory("octet-bulk-");
  private readonly tickets = new Map<string, { locator: string; capacity: number; mediaType: string }>();
  private readonly leases = new Map<string, string>();
  private readonly blobs = new Map<string, { data: Uint8Array; ref: JsonRecord }>();

  /** `protocol.bulk_objects_v1` of the initialize offer. */
  offer(): JsonRecord {
    return { profile: "local-file.v1", transfer_directory: this.directory, limits: { ...BULK_LIMITS } };
  }

  /** Answer one bulk request; throws {@link BulkRefusal}. */
  answer(method: string, params: JsonRecord): unknown {
    switch (method) {
      case "bulk/write":
        return this.write(params);
      case "bulk/commit":
        return this.commit(params);
      case "bulk/read":
        return this.read(params);
      case "bulk/release":
        return this.release(params);
      default:
        throw new BulkRefusal("unsupported_feature");
    }
  }

  /** Blobs committed so far, by id (for tests). */
  blob(id: string): Uint8Array | undefined {
    return this.blobs.get(id)?.data;
  }

  /** Transfer files still present (for tests: every ticket and lease must end released). */
  outstanding(): number {
    return this.tickets.size + this.leases.size;
  }

  private write(params: JsonRecord): unknown {
    const { capacity, media_type: mediaType } = params;
    if (params.profile !== "local-file.v1" || !Number.isSafeInteger(capacity) || (capacity as number) < 0 || typeof mediaType !== "string") throw new BulkRefusal("blob_unavailable");
    // Outstanding tickets count, not every ticket ever issued.
    if ((capacity as number) > BULK_LIMITS.object_bytes || this.tickets.size >= BULK_LIMITS.write_tickets_per_generation) throw new BulkRefusal("quota_exceeded");
    const locator = this.createFile(new Uint8Array(0));
    const ticket = `t${hex(16)}`;
    this.tickets.set(ticket, { locator, capacity: capacity as number, mediaType });
    return { ticket, profile: "local-file.v1", locator, capacity };
  }

  private commit(params: JsonRecord): unknown {
    const ticket = this.tickets.get(String(params.ticket));
    if (!ticket) throw new BulkRefusal("blob_unavailable");
    this.tickets.delete(String(params.ticket)); // consumed even when the commit fails
    try {
      const digest = params.digest as JsonRecord | undefined;
      if (!digest || digest.algorithm !== "sha256") throw new BulkRefusal("unsupported_feature");
      if (typeof digest.value !== "string" || !/^[0-9a-f]{64}$/.test(digest.value)) throw new BulkRefusal("integrity_mismatch");
      if (!Number.isSafeInteger(params.bytes) || (params.bytes as number) > ticket.capacity) throw new BulkRefusal("quota_exceeded");
      const data = this.readFile(ticket.locator, ticket.capacity + 1);
      if (data.length !== params.bytes) throw new BulkRefusal("size_mismatch");
      if (new Bun.CryptoHasher("sha256").update(data).digest("hex") !== digest.value) throw new BulkRefusal("integrity_mismatch");
      const id = `b${hex(16)}`;
      const ref = { $blob: id, bytes: data.length, digest: { algorithm: "sha256", value: digest.value }, media_type: ticket.mediaType };
      this.blobs.set(id, { data, ref });
      return ref;
    } finally {
      this.removeFile(ticket.locator);
    }
  }

  private read(params: JsonRecord): unknown {
    const ref = params.blob as JsonRecord | undefined;
    const blob = ref ? this.blobs.get(String(ref.$blob)) : undefined;
    if (params.profile !== "local-file.v1" || !blob || JSON.stringify(blob.ref) !== JSON.stringify(ref)) throw new BulkRefusal("blob_unavailable");
    if (this.leases.size >= BULK_LIMITS.read_leases_per_generation) throw new BulkRefusal("quota_exceeded");
    const locator = this.createFile(blob.data);
    const lease = `l${hex(16)}`;
    this.leases.set(lease, locator);
    return { lease, profile: "local-file.v1", locator, bytes: blob.data.length };
  }

  private release(params: JsonRecord): unknown {
    const id = String(params.id);
    const locator = this.tickets.get(id)?.locator ?? this.leases.get(id);
    if (locator === undefined) throw new BulkRefusal("blob_unavailable");
    this.tickets.delete(id);
    this.leases.delete(id);
    this.removeFile(locator);
    return { released: true };
  }

  private createFile(data: Uint8Array): string {
    const locator = `octet-transfer-${hex(24)}`;
    const fd = openSync(join(this.directory, locator), constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      for (let offset = 0; offset < data.length; ) offset += writeSync(fd, data, offset, data.length - offset);
    } finally {
      closeSync(fd);
    }
    return locator;
  }

  private readFile(locator: string, max: number): Uint8Array {
    const fd = openSync(join(this.directory, locator), constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      if (!fstatSync(fd).isFile()) throw new BulkRefusal("blob_unavailable");
      const buffer = new Uint8Array(Math.min(max, fstatSync(fd).size + 1));
      let used = 0;
      for (let n = 1; n > 0 && used < buffer.length; used += n) n = readSync(fd, buffer, used, buffer.length - used, used);
      return buffer.slice(0, used);
    } finally {
      closeSync(fd);
    }
  }

  private removeFile(locator: string): void {
    try {
      unlinkSync(join(this.directory, locator));
    } catch {
      /* already gone */
    }
  }

  /** Remove the transfer directory (the test host's cleanup also does). */
  dispose(): void {
    rmSync(this.directory, { recursive: true, force: true });
  }
}
