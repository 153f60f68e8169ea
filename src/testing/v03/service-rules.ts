/**
 * What the test host holds migration results and bus requests to (octet
 * `API-0.4-REFERENCE.md` models and bounds, `docs/extensions/event-bus.md`),
 * restated apart from the runtime's validators so that a runtime mistake is caught.
 */
import { isObject, type JsonRecord } from "../../check.ts";

const bytes = (s: string) => Buffer.byteLength(s);
const keys = (o: JsonRecord, allowed: string[]) => Object.keys(o).filter((k) => !allowed.includes(k));

/** Migration bounds (`max_migration_*`). */
const M = { items: 128, path: 4096, name: 128, skill: 131_072, command: 4096, argument: 16_384, diagnostic: 4096 };

function stringWithin(value: unknown, max: number, at: string): string | undefined {
  if (typeof value !== "string") return `${at} must be a string`;
  if (bytes(value) > max) return `${at} exceeds ${max} bytes`;
  return undefined;
}

function list(value: unknown, at: string, item: (v: unknown, at: string) => string | undefined): string | undefined {
  if (!Array.isArray(value)) return `${at} must be an array`;
  if (value.length > M.items) return `${at} holds ${value.length} items; at most ${M.items}`;
  for (const [i, v] of value.entries()) {
    const problem = item(v, `${at}[${i}]`);
    if (problem) return problem;
  }
  return undefined;
}

function record(value: unknown, at: string, fields: Record<string, (v: unknown, at: string) => string | undefined>): string | undefined {
  if (!isObject(value)) return `${at} must be an object`;
  const unknown = keys(value, Object.keys(fields));
  if (unknown.length > 0) return `${at} has member(s) API 0.3 does not define: ${unknown.join(", ")}`;
  for (const [name, check] of Object.entries(fields)) {
    if (!(name in value)) return `${at}.${name} is required`;
    const problem = check(value[name], `${at}.${name}`);
    if (problem) return problem;
  }
  return undefined;
}

const path = (v: unknown, at: string) => stringWithin(v, M.path, at);
const name = (v: unknown, at: string) => stringWithin(v, M.name, at);
const diagnostic = (v: unknown, at: string) =>
  record(v, at, { path, reason: (r, a) => stringWithin(r, M.diagnostic, a), severity: (s, a) => (s === "warning" || s === "error" ? undefined : `${a} must be warning or error`) });

/** `MigrationDetectResult`: `{detected, config_paths, diagnostics}`. */
export function migrationDetectViolation(result: unknown): string | undefined {
  return record(result, "migration/detect result", {
    config_paths: (v, at) => list(v, at, path),
    detected: (v, at) => (typeof v === "boolean" ? undefined : `${at} must be a boolean`),
    diagnostics: (v, at) => list(v, at, diagnostic),
  });
}

/** `MigrationImportResult`: `{models, skills, mcp_servers, diagnostics}` within the migration bounds. */
export function migrationImportViolation(result: unknown): string | undefined {
  return record(result, "migration/import result", {
    diagnostics: (v, at) => list(v, at, diagnostic),
    mcp_servers: (v, at) =>
      list(v, at, (s, a) =>
        record(s, a, { args: (x, b) => list(x, b, (arg, c) => stringWithin(arg, M.argument, c)), command: (c, b) => stringWithin(c, M.command, b), name, path }),
      ),
    models: (v, at) => list(v, at, (m, a) => record(m, a, { model: name, path, provider: name })),
    skills: (v, at) => list(v, at, (s, a) => record(s, a, { content: (c, b) => stringWithin(c, M.skill, b), name, path })),
  });
}

/** Bus bounds (`max_bus_*`). */
export const BUS = { topics: 128, fields: 24, identifier: 64, topic: 96, string: 1024, enumValues: 32, message: 8192, subscriptions: 16 };
const IDENT = /^[a-z0-9][a-z0-9_-]*$/;

/** An exact topic `bus.<owner>.<name>`: its owner, or a violation. */
export function busTopic(topic: unknown): { owner: string } | { violation: string } {
  if (typeof topic !== "string" || bytes(topic) > BUS.topic) return { violation: `topic must be a string of at most ${BUS.topic} bytes` };
  const [prefix, owner, rest, ...more] = topic.split(".");
  if (prefix !== "bus" || more.length > 0 || !owner || !rest || !IDENT.test(owner) || !IDENT.test(rest) || bytes(owner) > BUS.identifier || bytes(rest) > BUS.identifier) {
    return { violation: `topic ${JSON.stringify(topic)} is not bus.<owner>.<name> with [a-z0-9][a-z0-9_-]* segments of at most ${BUS.identifier} bytes` };
  }
  return { owner };
}

/** `BusFieldSpec[]` of a declaration. */
export function busFieldsViolation(fields: unknown): string | undefined {
  if (!Array.isArray(fields) || fields.length > BUS.fields) return `fields must be an array of at most ${BUS.fields}`;
  const names = new Set<string>();
  for (const f of fields) {
    if (!isObject(f)) return "a field spec must be an object";
    const unknown = keys(f, ["kind", "max_bytes", "maximum", "minimum", "name", "required", "values"]);
    if (unknown.length > 0) return `field spec has unknown member(s) ${unknown.join(", ")}`;
    if (typeof f.name !== "string" || !IDENT.test(f.name) || bytes(f.name) > BUS.identifier || names.has(f.name)) return `field name ${JSON.stringify(f.name)} is not a unique identifier`;
    names.add(f.name);
    if (!["string", "integer", "boolean", "enum"].includes(f.kind as string)) return `field ${f.name}: kind ${JSON.stringify(f.kind)}`;
    if (typeof f.required !== "boolean") return `field ${f.name}: required must be a boolean`;
    if (!Number.isSafeInteger(f.max_bytes) || (f.max_bytes as number) < 1 || (f.max_bytes as number) > BUS.string) return `field ${f.name}: max_bytes must be 1..${BUS.string}`;
    if (!Array.isArray(f.values) || (f.kind === "enum") !== f.values.length > 0 || f.values.length > BUS.enumValues) return `field ${f.name}: values (enum only, 1..${BUS.enumValues})`;
    if (("minimum" in f || "maximum" in f) && f.kind !== "integer") return `field ${f.name}: minimum/maximum only on integers`;
  }
  return undefined;
}

/** A publish payload against the declared fields (exact, scalar, bounded, ≤ 8,192 bytes as JSON). */
export function busPayloadViolation(payload: unknown, fields: JsonRecord[]): string | undefined {
  if (!isObject(payload)) return "payload must be an object";
  for (const key of Object.keys(payload)) if (!fields.some((f) => f.name === key)) return `payload field ${key} was not declared`;
  for (const f of fields) {
    const v = payload[f.name as string];
    if (v === undefined) {
      if (f.required) return `payload lacks the required ${String(f.name)}`;
      continue;
    }
    const ok =
      f.kind === "boolean" ? typeof v === "boolean" : f.kind === "integer" ? Number.isSafeInteger(v) : typeof v === "string" && bytes(v) <= Math.min(f.max_bytes as number, BUS.string);
    if (!ok || (f.kind === "enum" && !(f.values as string[]).includes(v as string))) return `payload field ${String(f.name)} does not match its ${String(f.kind)} declaration`;
  }
  if (bytes(JSON.stringify(payload)) > BUS.message) return `payload exceeds ${BUS.message} bytes`;
  return undefined;
}
