import { WireError } from "./canonical-errors.ts";
import { type FieldSpec, MODELS } from "./models.ts";
import { BOUNDS, DISPOSITIONS } from "./canonical-protocol.ts";

/**
 * Check `value` against model `name` of `models.ts`, as octet's generated
 * codecs do: closed objects, required/optional, nullable, types, then bounds.
 * A wrong shape is `invalid_params` (an id `invalid_request`), a bound
 * overflow `resource_exhausted`, a deferred union variant
 * `capability_mismatch`. `where` prefixes the message (a method, a path).
 */
export function checkModel(name: string, value: unknown, where = name): void {
  const spec = MODELS[name];
  if (!spec) throw new Error(`no API 0.3 model ${name}`);
  const object = asObject(value, where);
  if (spec.kind === "record") return checkFields(spec.fields, object, where);
  const tag = object[spec.tag];
  const variant = spec.variants.find((v) => v.wire === tag);
  if (!variant) throw new WireError("invalid_params", `${where}.${spec.tag} must be one of ${spec.variants.map((v) => v.wire).join(", ")}`);
  if (variant.deferred) throw new WireError("capability_mismatch", `${where}: ${spec.tag} ${JSON.stringify(tag)} is deferred on API 0.3`, { [spec.tag]: tag });
  checkFields([{ name: spec.tag, type: "string" }, ...variant.fields], object, where);
}

function checkFields(fields: readonly FieldSpec[], object: Record<string, unknown>, where: string): void {
  for (const key of Object.keys(object)) {
    if (!fields.some((f) => f.name === key)) throw new WireError("invalid_params", `${where} has an unknown member ${JSON.stringify(key)}`);
  }
  for (const field of fields) {
    const at = `${where}.${field.name}`;
    if (!Object.hasOwn(object, field.name) || object[field.name] === undefined) {
      if (!field.optional) throw new WireError("invalid_params", `${at} is required`);
      continue;
    }
    const item = object[field.name];
    if (item === null) {
      if (!field.nullable) throw new WireError("invalid_params", `${at} must not be null`);
      continue;
    }
    checkType(field.type, item, at);
    if (field.maxItems && Array.isArray(item) && item.length > BOUNDS[field.maxItems]) {
      throw new WireError("resource_exhausted", `${at} holds ${item.length} items; ${field.maxItems} is ${BOUNDS[field.maxItems]}`);
    }
    if (field.maxBytes) {
      for (const entry of Array.isArray(item) ? item : [item]) {
        if (typeof entry === "string" && Buffer.byteLength(entry) > BOUNDS[field.maxBytes]) {
          throw new WireError("resource_exhausted", `${at} exceeds ${field.maxBytes} (${BOUNDS[field.maxBytes]} bytes)`);
        }
      }
    }
    if (field.values && !field.values.includes(item as string)) throw new WireError("invalid_params", `${at} must be one of ${field.values.join(", ")}`);
  }
}

function checkType(type: string, value: unknown, at: string): void {
  if (type.endsWith("[]")) {
    if (!Array.isArray(value)) throw new WireError("invalid_params", `${at} must be an array`);
    value.forEach((item, i) => checkType(type.slice(0, -2), item, `${at}[${i}]`));
    return;
  }
  switch (type) {
    case "string":
      if (typeof value !== "string") throw new WireError("invalid_params", `${at} must be a string`);
      if (!value.isWellFormed()) throw new WireError("invalid_params", `${at} holds a lone surrogate`);
      return;
    case "boolean":
      if (typeof value !== "boolean") throw new WireError("invalid_params", `${at} must be a boolean`);
      return;
    case "integer":
      if (!Number.isSafeInteger(value) || (value as number) < 0) throw new WireError("invalid_params", `${at} must be an integer from 0 to 2^53−1`);
      return;
    case "signed_integer":
      if (!Number.isSafeInteger(value)) throw new WireError("invalid_params", `${at} must be an integer within ±(2^53−1)`);
      return;
    case "json":
      return; // received values were decoded canonically; values sent are checked when encoded
    case "disposition":
      if (typeof value !== "string" || !Object.hasOwn(DISPOSITIONS, value)) throw new WireError("invalid_params", `${at} must be continue, deny or defer`);
      return;
    case "rpc_id":
      if (!isRpcId(value)) throw new WireError("invalid_request", `${at} must be a non-empty string of at most 256 bytes or an integer from 0 to 2^53−1`);
      return;
    default:
      checkModel(type, value, at);
  }
}

/** A valid API 0.3 id: a non-empty well-formed string of ≤ 256 UTF-8 bytes, or an integer 0..2^53−1. */
export function isRpcId(value: unknown): value is string | number {
  if (typeof value === "number") return Number.isSafeInteger(value) && value >= 0;
  return typeof value === "string" && value !== "" && value.isWellFormed() && Buffer.byteLength(value) <= BOUNDS.max_json_rpc_id_bytes;
}

function asObject(value: unknown, where: string): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new WireError("invalid_params", `${where} must be an object`);
  return value as Record<string, unknown>;
}
