/**
 * A transcript file is untrusted input (docs/security.md): it may say only
 * what the host offered (offer, flags, octet version), each checked by type.
 * Nothing in it selects what runs; any other key is refused.
 */
import { isObject, type JsonRecord } from "../check.ts";
import type { TestHostOptions } from "./host-options.ts";

/** The host-offer facts a recording may carry. */
export type RecordedOptions = Pick<TestHostOptions, "offer" | "flags" | "octetVersion">;

/** A transcript that is malformed or says more than a recording may. */
export class TranscriptError extends Error {
  override name = "TranscriptError";
}

const OPTION_KEYS = ["offer", "flags", "octetVersion"];
const OFFER_KEYS = ["required", "optional", "maxConcurrentRequests"];
const TOP_KEYS = ["format", "extension", "options", "frames"];

/** A key as printed: plain names as they are, anything else JSON-quoted (a transcript may hold control characters). */
const shown = (key: string) =>
  /^[A-Za-z0-9_.$-]+$/.test(key) ? key : JSON.stringify(key).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** The recording's checked parts; throws {@link TranscriptError} naming the first bad key. */
export function checkRecording(path: string, parsed: unknown): { extension: { name: string; api_version: string }; options: RecordedOptions; frames: { from: "host" | "extension"; text: string }[] } {
  const fail = (message: string): never => {
    throw new TranscriptError(`${path}: ${message}`);
  };
  if (!isObject(parsed) || parsed.format !== "octet-transcript/1") return fail("not an octet-transcript/1 file");
  onlyKeys(parsed, TOP_KEYS, "", fail);
  const extension = parsed.extension;
  if (!isObject(extension) || typeof extension.name !== "string" || typeof extension.api_version !== "string") return fail("extension must be {name: string, api_version: string}");
  if (!Array.isArray(parsed.frames)) return fail("frames must be an array");
  const frames = parsed.frames.map((frame: unknown, i) => {
    if (!isObject(frame) || (frame.from !== "host" && frame.from !== "extension") || typeof frame.text !== "string" || Object.keys(frame).length !== 2) {
      return fail(`frames[${i}] must be {from: "host" | "extension", text: string}`);
    }
    return { from: frame.from as "host" | "extension", text: frame.text as string };
  });
  return { extension: { name: extension.name, api_version: extension.api_version }, options: recordedOptions(parsed.options ?? {}, fail), frames };
}

function recordedOptions(options: unknown, fail: (message: string) => never): RecordedOptions {
  if (!isObject(options)) return fail("options must be an object");
  onlyKeys(options, OPTION_KEYS, "options.", fail);
  const out: RecordedOptions = {};
  if (options.offer !== undefined) out.offer = recordedOffer(options.offer, fail);
  if (options.flags !== undefined) {
    if (!isObject(options.flags)) return fail("options.flags must be an object");
    const flags: Record<string, boolean | string | number> = Object.create(null);
    for (const [name, value] of Object.entries(options.flags)) {
      if (typeof value !== "boolean" && typeof value !== "string" && typeof value !== "number") return fail(`options.flags.${shown(name)} must be a boolean, string or number`);
      flags[name] = value;
    }
    out.flags = flags;
  }
  if (options.octetVersion !== undefined) {
    if (typeof options.octetVersion !== "string") return fail("options.octetVersion must be a string");
    out.octetVersion = options.octetVersion;
  }
  return out;
}

function recordedOffer(offer: unknown, fail: (message: string) => never): NonNullable<RecordedOptions["offer"]> {
  if (!isObject(offer)) return fail("options.offer must be an object");
  onlyKeys(offer, OFFER_KEYS, "options.offer.", fail);
  const out: NonNullable<RecordedOptions["offer"]> = {};
  for (const key of ["required", "optional"] as const) {
    const list = offer[key];
    if (list === undefined) continue;
    if (!Array.isArray(list) || !list.every((item) => typeof item === "string")) return fail(`options.offer.${key} must be an array of strings`);
    out[key] = [...list];
  }
  const limit = offer.maxConcurrentRequests;
  if (limit !== undefined) {
    if (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 1) return fail("options.offer.maxConcurrentRequests must be a positive integer");
    out.maxConcurrentRequests = limit;
  }
  return out;
}

function onlyKeys(value: JsonRecord, allowed: string[], prefix: string, fail: (message: string) => never): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) fail(`${prefix}${shown(key)} is not allowed in a transcript: a recording may set only ${allowed.join(", ")}${prefix === "options." ? " (replay always runs the project's own entry point)" : ""}`);
  }
}
