/**
 * The host side of native resources (`resource_refs_v1`, API 0.4;
 * docs/api-0.4.md "Resources"): `ext.resources.export` registers a value
 * under the calling tool call (`resource/register`), `release` retires one
 * (`resource/release`), `resolve` looks one up. The values, their states and
 * the disposers are kept by `ResourceRegistry` (`resources.ts`).
 */
import { isObject } from "../check.ts";
import { ErrorCode, RpcError } from "../errors.ts";
import type { HostAccess } from "./host-session.ts";
import { isResourceRef, type ResourceRef, type ResourceType } from "./resources.ts";

/** Tool calls whose reply already settles their provisional refs. */
const exportedUnder = new WeakSet<object>();

/** Register `value` and resolve to its provisional ref; it becomes active when the calling tool call succeeds with it. */
export async function exportResource<T>(access: HostAccess, type: ResourceType<T>, value: T): Promise<ResourceRef> {
  const call = "ext.resources.export()";
  const host = access.session();
  host.requireFeature("resource_refs_v1", call);
  if (access.registry.resourceTypes.get(type?.name) !== type) throw new Error("export a value of a type registered with ext.resourceType");
  const scope = access.caller();
  if (scope?.method !== "tool/call" || !scope.afterReply) throw new Error("resources are exported from a tool handler (octet requires a live tool/call parent)");
  const parent = scope.id;
  const ref = await host.request("resource/register", { type: type.name }, call, scope, { parent: "first" });
  if (!isResourceRef(ref) || ref.type !== type.name) throw new RpcError(ErrorCode.InternalError, "invalid resource/register response");
  const resources = access.registry.resources;
  resources.add(parent, ref, type, value);
  if (!exportedUnder.has(scope)) {
    exportedUnder.add(scope);
    scope.afterReply((succeeded, result) => resources.settle(parent, succeeded, result));
  }
  return ref;
}

/** Retire `ref` at the host (`resource/release`) and locally. */
export async function releaseResource(access: HostAccess, ref: ResourceRef): Promise<{ retired: true; cleanup: string }> {
  const call = "ext.resources.release()";
  const host = access.session();
  host.requireFeature("resource_refs_v1", call);
  if (!isResourceRef(ref)) throw new Error("not a ResourceRef");
  const scope = access.caller();
  if (scope?.method !== "tool/call") throw new Error("resources are released from a tool handler (octet requires a live tool/call parent)");
  const reply = await host.request("resource/release", { resource: ref }, call, scope, { parent: "first" });
  if (!isObject(reply) || reply.retired !== true || typeof reply.cleanup !== "string") throw new RpcError(ErrorCode.InternalError, "invalid resource/release response");
  access.registry.resources.retire(ref);
  return reply as { retired: true; cleanup: string };
}

/** The value behind an active ref of `type`; undefined for anything else. */
export function resolveResource<T>(access: HostAccess, ref: unknown, type: ResourceType<T>): T | undefined {
  return access.registry.resources.resolve(ref, type);
}
