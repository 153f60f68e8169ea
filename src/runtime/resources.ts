/**
 * Native resources (`resource_refs_v1` with `operation_descriptors_v1`, API
 * 0.4; docs/api-0.4.md "Resources"). A tool exports a value it keeps in
 * memory (a connection, a parsed model) as an opaque ResourceRef the model
 * can pass to later calls. octet owns the lifecycle: a ref registered under
 * a tool call is provisional until that call succeeds with it at a declared
 * output path; it is retired on failure or release, and octet then asks the
 * extension to dispose of it (`resource/dispose`). The registry here keeps
 * the values and runs each type's disposer exactly once.
 */
import { isObject } from "../check.ts";
import { ErrorCode, RpcError } from "../errors.ts";
import { RESOURCE_LIMITS } from "../protocol.ts";
import type { JsonObject } from "./types.ts";

/** `{"$resource": token, "type": name}`: opaque; only octet mints tokens. */
export interface ResourceRef {
  $resource: string;
  type: string;
}

/** A nominal resource type registered with `ext.resourceType`. */
export interface ResourceType<T = unknown> {
  readonly name: string;
  /** The closed JSON Schema of a ref of this type, for `parameters` and `outputSchema`. */
  readonly schema: JsonObject;
  /** @internal */
  readonly dispose?: (value: T) => void | Promise<void>;
}

/** `ext.tool({ operation })`: which argument and result paths carry resource refs. */
export interface OperationDescriptor {
  /** Stable id of the operation. */
  id: string;
  /** An input path naming the resource the operation acts on (presentation only). */
  receiver?: string;
  /** JSON Pointers into the arguments (object properties only) and the type each holds; octet pins them exclusively. */
  resourceInputs?: { path: string; type: ResourceType<any> | string }[];
  /** JSON Pointers into `structured_content` where the call returns new refs. */
  resourceOutputs?: { path: string; type: ResourceType<any> | string }[];
}

const TYPE_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,127}$/;
const TOKEN = /^[\x21-\x7e]{1,128}$/;
/** A fixed JSON Pointer through object properties: `/a/b` (no array indices, no wildcards). */
const POINTER = /^(?:\/(?:[^/~]|~[01])+)+$/;

/** Whether `value` is a well-formed ResourceRef. */
export function isResourceRef(value: unknown): value is ResourceRef {
  return isObject(value) && Object.keys(value).length === 2 && typeof value.$resource === "string" && TOKEN.test(value.$resource) && typeof value.type === "string" && TYPE_NAME.test(value.type);
}

/** The schema of a ref of type `name`. */
export function resourceSchema(name: string): JsonObject {
  return {
    type: "object",
    properties: { $resource: { type: "string", minLength: 1, maxLength: 128 }, type: { type: "string", enum: [name] } },
    required: ["$resource", "type"],
    additionalProperties: false,
  };
}

/** Check a type name and make the type. */
export function makeResourceType<T>(name: string, dispose?: (value: T) => void | Promise<void>): ResourceType<T> {
  if (typeof name !== "string" || !TYPE_NAME.test(name)) throw new Error(`resource type ${JSON.stringify(name)} must be 1-128 ASCII characters: a letter, then letters, digits, '_', '.' or '-'`);
  if (dispose !== undefined && typeof dispose !== "function") throw new Error(`resource type ${name}: dispose must be a function`);
  return Object.freeze({ name, schema: resourceSchema(name), ...(dispose ? { dispose } : {}) });
}

/**
 * Check an operation against the tool's schemas as octet does: each path
 * leads through `type: "object"` properties (no combinators) to exactly the
 * ref schema of its type, outputs need an `outputSchema`, and the schemas
 * hold no ref slot the operation does not declare.
 */
export function checkOperationSchemas(operation: JsonObject, parameters: JsonObject, outputSchema: JsonObject | undefined, tool: string): void {
  const slots = (list: unknown) => (list as { path: string; type: string }[]).map((slot) => ({ path: slot.path, type: slot.type }));
  const inputs = slots(operation.resource_inputs);
  const outputs = slots(operation.resource_outputs);
  if (outputs.length > 0 && !outputSchema) throw new Error(`tool \`${tool}\`: resource outputs need an outputSchema that holds them`);
  for (const [schema, declared, where] of [
    [parameters, inputs, "parameters"],
    [outputSchema, outputs, "outputSchema"],
  ] as const) {
    if (!schema) continue;
    for (const slot of declared) {
      const node = schemaAt(schema, slot.path);
      if (!node || canonical(node) !== canonical(resourceSchema(slot.type))) {
        throw new Error(`tool \`${tool}\`: ${where} at ${slot.path} must be exactly the ref schema of ${slot.type} (its ResourceType's .schema), reached through type "object" properties`);
      }
    }
    const found = refSlots(schema, "").sort();
    const expected = declared.map((slot) => slot.path).sort();
    if (canonical(found) !== canonical(expected)) throw new Error(`tool \`${tool}\`: ${where} holds resource refs at ${JSON.stringify(found)}, the operation declares ${JSON.stringify(expected)}`);
  }
}

function schemaAt(schema: JsonObject, pointer: string): JsonObject | undefined {
  let node: unknown = schema;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isObject(node) || node.type !== "object" || "anyOf" in node || "oneOf" in node || "allOf" in node || !isObject(node.properties)) return undefined;
    node = node.properties[key];
  }
  return isObject(node) ? node : undefined;
}

function refSlots(node: unknown, path: string): string[] {
  if (!isObject(node)) return [];
  if (isObject(node.properties) && "$resource" in node.properties) return [path];
  const out: string[] = [];
  if (isObject(node.properties)) for (const [key, child] of Object.entries(node.properties)) out.push(...refSlots(child, `${path}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`));
  return out;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value)) return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  return JSON.stringify(value);
}

/** The wire form of an operation descriptor (`operation` in the tool definition). */
export function operationWire(operation: OperationDescriptor, known: ReadonlyMap<string, ResourceType<any>>, tool: string): JsonObject {
  if (!isObject(operation) || typeof operation.id !== "string" || !TYPE_NAME.test(operation.id)) throw new Error(`tool \`${tool}\`: operation.id must be 1-128 ASCII characters: a letter, then letters, digits, '_', '.' or '-'`);
  const typeName = (type: ResourceType<any> | string) => {
    const name = typeof type === "string" ? type : type?.name;
    if (typeof name !== "string" || !known.has(name)) throw new Error(`tool \`${tool}\`: resource type ${JSON.stringify(name)} is not registered with ext.resourceType`);
    return name;
  };
  const paths = (list: OperationDescriptor["resourceInputs"], what: string) => {
    if (list === undefined) return [];
    if (!Array.isArray(list)) throw new Error(`tool \`${tool}\`: operation.${what} must be an array`);
    const seen = new Set<string>();
    return list.map((slot) => {
      if (!isObject(slot) || typeof slot.path !== "string" || !POINTER.test(slot.path) || /\/(?:\d+|-)(?:\/|$)/.test(slot.path)) {
        throw new Error(`tool \`${tool}\`: operation.${what} paths must be JSON Pointers through object properties, like "/connection"`);
      }
      if (seen.has(slot.path)) throw new Error(`tool \`${tool}\`: operation.${what} lists ${slot.path} twice`);
      seen.add(slot.path);
      return { path: slot.path, type: typeName(slot.type) };
    });
  };
  const inputs = paths(operation.resourceInputs, "resourceInputs").map((slot) => ({ ...slot, access: "exclusive" }));
  const outputs = paths(operation.resourceOutputs, "resourceOutputs");
  const wire: JsonObject = { id: operation.id, resource_inputs: inputs, resource_outputs: outputs };
  if (operation.receiver !== undefined) {
    if (!inputs.some((slot) => slot.path === operation.receiver)) throw new Error(`tool \`${tool}\`: operation.receiver must be one of its resource input paths`);
    wire.receiver = operation.receiver;
  }
  return wire;
}

type RecordState = "provisional" | "active" | "retired";
interface ResourceRecord {
  type: ResourceType<any>;
  value: unknown;
  state: RecordState;
}

/** The extension's side of the registry: values by token. */
export class ResourceRegistry {
  private readonly records = new Map<string, ResourceRecord>();
  /** Provisional tokens per parent request id. */
  private readonly pending = new Map<unknown, string[]>();

  /** Remember a provisional ref the host registered for `parent`. */
  add(parent: unknown, ref: ResourceRef, type: ResourceType<any>, value: unknown): void {
    if (this.records.has(ref.$resource)) throw new RpcError(ErrorCode.InternalError, "the host returned a resource token it already issued");
    if (this.records.size >= RESOURCE_LIMITS.max_records) throw new RpcError(ErrorCode.ServerError, "quota_exceeded", { code: "quota_exceeded" });
    this.records.set(ref.$resource, { type, value, state: "provisional" });
    const list = this.pending.get(parent) ?? [];
    list.push(ref.$resource);
    this.pending.set(parent, list);
  }

  /** The parent's reply was written: provisional refs found in `result` become active, the rest retire (octet does the same). */
  settle(parent: unknown, succeeded: boolean, result: unknown): void {
    const tokens = this.pending.get(parent);
    if (!tokens) return;
    this.pending.delete(parent);
    const returned = succeeded ? refTokens(result) : new Set<string>();
    for (const token of tokens) {
      const record = this.records.get(token);
      if (record) record.state = returned.has(token) ? "active" : "retired";
    }
  }

  /** The value behind an active ref of `type` (undefined for unknown, retired or mistyped refs). */
  resolve<T>(ref: unknown, type: ResourceType<T> | string): T | undefined {
    if (!isResourceRef(ref)) return undefined;
    const record = this.records.get(ref.$resource);
    const name = typeof type === "string" ? type : type.name;
    if (!record || record.state !== "active" || record.type.name !== name || ref.type !== name) return undefined;
    return record.value as T;
  }

  /** Mark a ref released locally (the host disposes of it later). */
  retire(ref: ResourceRef): void {
    const record = this.records.get(ref.$resource);
    if (record) record.state = "retired";
  }

  /** `resource/dispose`: run each disposer once and report it. */
  async dispose(params: unknown): Promise<{ results: { resource: ResourceRef; status: "completed" | "failed" }[] }> {
    if (!isObject(params) || params.reason !== "retired" || !Array.isArray(params.resources) || params.resources.length < 1 || params.resources.length > RESOURCE_LIMITS.max_records) {
      throw new RpcError(ErrorCode.InvalidParams, "resource/dispose needs reason \"retired\" and 1 to 256 resources");
    }
    const refs = params.resources;
    if (refs.some((ref) => !isResourceRef(ref))) throw new RpcError(ErrorCode.InvalidParams, "resource/dispose resources must be ResourceRefs");
    if (new Set(refs.map((ref) => (ref as ResourceRef).$resource)).size !== refs.length) throw new RpcError(ErrorCode.InvalidParams, "resource/dispose lists a resource twice");
    const results: { resource: ResourceRef; status: "completed" | "failed" }[] = [];
    for (const ref of refs as ResourceRef[]) {
      const record = this.records.get(ref.$resource);
      if (!record || record.type.name !== ref.type) {
        results.push({ resource: ref, status: "failed" });
        continue;
      }
      this.records.delete(ref.$resource);
      try {
        await record.type.dispose?.(record.value);
        results.push({ resource: ref, status: "completed" });
      } catch {
        results.push({ resource: ref, status: "failed" });
      }
    }
    return { results };
  }
}

/** Every `$resource` token anywhere in `value`. */
function refTokens(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) refTokens(item, found);
  else if (isObject(value)) {
    if (isResourceRef(value)) found.add(value.$resource);
    else for (const item of Object.values(value)) refTokens(item, found);
  }
  return found;
}
