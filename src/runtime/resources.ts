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

/** octet's registry bounds, which a 0.4 host offers and the reply must repeat exactly. */
export const RESOURCE_LIMITS = { max_records: 256, max_registrations_per_parent: 32 } as const;
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
    properties: { $resource: { type: "string", minLength: 1, maxLength: 128 }, type: { const: name } },
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

/** The wire form of an operation descriptor (`operation` in the tool definition). */
export function operationWire(operation: OperationDescriptor, known: ReadonlyMap<string, ResourceType<any>>, tool: string): JsonObject {
  if (!isObject(operation) || typeof operation.id !== "string" || operation.id === "" || operation.id.length > 128) throw new Error(`tool \`${tool}\`: operation.id must be 1-128 characters`);
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
