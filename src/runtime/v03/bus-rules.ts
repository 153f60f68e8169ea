import { encodeCanonical } from "../../wire/canonical-frame.ts";
import { WireError } from "./canonical-errors.ts";

/** Bounds of the event bus (octet `API-0.4-REFERENCE.md` § Bounds, `max_bus_*`). */
export const BUS_BOUNDS = {
  topics: 128,
  peers: 64,
  fields: 24,
  identifierBytes: 64,
  topicBytes: 96,
  stringBytes: 1_024,
  enumValues: 32,
  messageBytes: 8_192,
  queueMessages: 64,
  queueBytes: 262_144,
  subscriptions: 16,
  messageAgeMs: 30_000,
} as const;

/** A scalar field of a declared topic; `required` defaults to true, `maxBytes` to 1,024. */
export interface BusField {
  name: string;
  kind: "string" | "integer" | "boolean" | "enum";
  required?: boolean;
  maxBytes?: number;
  /** The alternatives of an `enum` (1..32, unique); none for other kinds. */
  values?: string[];
  /** Bounds of an `integer`. */
  minimum?: number;
  maximum?: number;
}

/** `BusFieldSpec` as octet reads it. */
export interface BusFieldSpec {
  name: string;
  kind: BusField["kind"];
  required: boolean;
  max_bytes: number;
  values: string[];
  minimum?: number;
  maximum?: number;
}

const IDENTIFIER = /^[a-z0-9][a-z0-9_-]*$/;
/** Field names octet refuses as authority-, credential- or path-shaped (matched on the lowercased alphanumerics). */
const FORBIDDEN_PARTS = ["apikey", "authorization", "capability", "credential", "cookie", "handle", "keychain", "oauth", "passwd", "password", "path", "pem", "private", "secret", "session", "token", "trust"];

const bytes = (s: string) => Buffer.byteLength(s);
const invalid = (detail: string) => new WireError("invalid_params", detail);
const exhausted = (detail: string) => new WireError("resource_exhausted", detail);

/** A topic segment or field name: `[a-z0-9][a-z0-9_-]*`, at most 64 bytes. */
export function checkIdentifier(value: unknown, where: string): string {
  if (typeof value !== "string" || !IDENTIFIER.test(value)) throw invalid(`${where} must match [a-z0-9][a-z0-9_-]* (got ${JSON.stringify(value)})`);
  if (bytes(value) > BUS_BOUNDS.identifierBytes) throw invalid(`${where} exceeds ${BUS_BOUNDS.identifierBytes} bytes`);
  return value;
}

/** An exact topic `bus.<owner>.<name>` (≤ 96 bytes); returns its owner. */
export function checkTopic(topic: unknown, where: string): string {
  if (typeof topic !== "string") throw invalid(`${where}: a topic must be a string bus.<owner>.<name>`);
  if (bytes(topic) > BUS_BOUNDS.topicBytes) throw invalid(`${where}: topic ${JSON.stringify(topic)} exceeds ${BUS_BOUNDS.topicBytes} bytes`);
  const parts = topic.split(".");
  if (parts.length !== 3 || parts[0] !== "bus") throw invalid(`${where}: topic ${JSON.stringify(topic)} is not bus.<owner>.<name> (no wildcards)`);
  checkIdentifier(parts[2], `${where}: the topic name`);
  return checkIdentifier(parts[1], `${where}: the topic owner`);
}

/** A string value: within the field's and the bus's byte bound, no control characters. */
function checkString(value: string, budget: number, where: string): void {
  if (bytes(value) > Math.min(budget, BUS_BOUNDS.stringBytes)) throw exhausted(`${where} exceeds ${Math.min(budget, BUS_BOUNDS.stringBytes)} bytes`);
  if (/\p{Cc}/u.test(value)) throw invalid(`${where} holds a control character`);
}

/** Author fields → `BusFieldSpec[]`, held to octet's declaration rules. */
export function fieldSpecs(fields: unknown, where: string): BusFieldSpec[] {
  if (!Array.isArray(fields)) throw invalid(`${where}: fields must be an array of { name, kind, … }`);
  if (fields.length > BUS_BOUNDS.fields) throw exhausted(`${where}: ${fields.length} fields exceed ${BUS_BOUNDS.fields}`);
  const seen = new Set<string>();
  return fields.map((field: BusField, i) => {
    const at = `${where}: field ${JSON.stringify(field?.name ?? i)}`;
    if (field === null || typeof field !== "object") throw invalid(`${where}: fields[${i}] must be an object`);
    const name = checkIdentifier(field.name, `${at} name`);
    const normalized = name.replace(/[^a-z0-9]/g, "");
    const part = FORBIDDEN_PARTS.find((p) => normalized.includes(p));
    if (part) throw invalid(`${at} looks like authority, a credential or a path ("${part}"); rename it`);
    if (seen.has(name)) throw invalid(`${at} is declared twice`);
    seen.add(name);
    if (!["string", "integer", "boolean", "enum"].includes(field.kind)) throw invalid(`${at}: kind must be string, integer, boolean or enum`);
    const maxBytes = field.maxBytes ?? BUS_BOUNDS.stringBytes;
    if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0 || maxBytes > BUS_BOUNDS.stringBytes) throw invalid(`${at}: maxBytes must be an integer from 1 to ${BUS_BOUNDS.stringBytes}`);
    const values = field.values ?? [];
    if (!Array.isArray(values) || (field.kind === "enum") !== values.length > 0) throw invalid(`${at}: values are required for an enum and only for an enum`);
    if (values.length > BUS_BOUNDS.enumValues) throw exhausted(`${at}: ${values.length} enum values exceed ${BUS_BOUNDS.enumValues}`);
    if (new Set(values).size !== values.length) throw invalid(`${at}: enum values must be unique`);
    for (const v of values) {
      if (typeof v !== "string") throw invalid(`${at}: enum values must be strings`);
      checkString(v, maxBytes, `${at} enum value`);
    }
    const spec: BusFieldSpec = { max_bytes: maxBytes, kind: field.kind, name, required: field.required ?? true, values: [...values] };
    if (typeof spec.required !== "boolean") throw invalid(`${at}: required must be a boolean`);
    for (const key of ["minimum", "maximum"] as const) {
      const bound = field[key];
      if (bound === undefined) continue;
      if (field.kind !== "integer" || !Number.isSafeInteger(bound)) throw invalid(`${at}: ${key} is an integer bound of an integer field`);
      spec[key] = bound;
    }
    if (spec.minimum !== undefined && spec.maximum !== undefined && spec.minimum > spec.maximum) throw invalid(`${at}: minimum is above maximum`);
    return spec;
  });
}

/** A payload against its topic's fields: exactly the declared scalars, within their bounds, ≤ 8,192 bytes encoded. */
export function checkPayload(payload: unknown, fields: readonly BusFieldSpec[], where: string): Record<string, unknown> {
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) throw invalid(`${where}: the payload must be an object of the declared fields`);
  const record = payload as Record<string, unknown>;
  for (const key of Object.keys(record)) if (!fields.some((f) => f.name === key)) throw invalid(`${where}: ${JSON.stringify(key)} is not a declared field`);
  for (const field of fields) {
    const at = `${where}: ${field.name}`;
    if (!Object.hasOwn(record, field.name) || record[field.name] === undefined) {
      if (field.required) throw invalid(`${at} is required`);
      continue;
    }
    const value = record[field.name];
    if (field.kind === "boolean" && typeof value !== "boolean") throw invalid(`${at} must be a boolean`);
    if (field.kind === "integer") {
      if (!Number.isSafeInteger(value)) throw invalid(`${at} must be an integer within ±(2^53−1)`);
      if (field.minimum !== undefined && (value as number) < field.minimum) throw invalid(`${at} is below ${field.minimum}`);
      if (field.maximum !== undefined && (value as number) > field.maximum) throw invalid(`${at} is above ${field.maximum}`);
    }
    if (field.kind === "string" || field.kind === "enum") {
      if (typeof value !== "string") throw invalid(`${at} must be a string`);
      if (field.kind === "enum" && !field.values.includes(value)) throw invalid(`${at} must be one of ${field.values.join(", ")}`);
      checkString(value, field.max_bytes, at);
    }
  }
  const size = bytes(encodeCanonical(record));
  if (size > BUS_BOUNDS.messageBytes) throw exhausted(`${where}: the payload is ${size} bytes encoded; a bus message holds ${BUS_BOUNDS.messageBytes}`);
  return record;
}
