/** octet's own answers to extension requests no test scripted (the coding product's defaults). */

import type { JsonRecord } from "../check.ts";
import { ErrorCode } from "../errors.ts";
import { BulkRefusal, type HostBulkStore } from "./bulk-store.ts";
import type { HostManifest } from "./manifest.ts";
import { errorReply, type Responder } from "./responders.ts";

/** The host-side tool catalog that `tools/register` and `tools/unregister` publish into. */
export interface HostCatalog {
  catalogRevision: number;
  catalogTools: string[];
}

/** The built-in responder for `method`. */
export function builtInResponder(method: string, manifest: HostManifest, catalog: HostCatalog, bulk?: HostBulkStore, resources?: HostResources): Responder {
  if (method === "resource/register" || method === "resource/release") {
    return (params) => {
      const answer = resources?.answer(method, params);
      if (!answer || "refused" in answer) {
        const code = answer?.refused ?? "unsupported_feature";
        return errorReply(ErrorCode.ServerError, code, { code });
      }
      return answer.result;
    };
  }
  if (method.startsWith("bulk/")) {
    return (params) => {
      if (!bulk) return errorReply(ErrorCode.ServerError, "unsupported_feature", { code: "unsupported_feature" });
      try {
        return bulk.answer(method, params);
      } catch (error) {
        if (!(error instanceof BulkRefusal)) throw error;
        return errorReply(ErrorCode.ServerError, error.code, { code: error.code });
      }
    };
  }
  if (method === "tools/register" || method === "tools/unregister") {
    return (params) => {
      const names = new Set(catalog.catalogTools);
      if (method === "tools/register") for (const tool of params.tools as JsonRecord[]) names.add(String(tool.name));
      else for (const name of params.names as string[]) names.delete(name);
      catalog.catalogRevision++;
      catalog.catalogTools = [...names];
      return { revision: catalog.catalogRevision, tools: catalog.catalogTools };
    };
  }
  return (params) => {
    const reply = defaultReply(method, params, manifest);
    return "error" in reply ? errorReply(reply.error.code, reply.error.message) : reply.result;
  };
}

/**
 * octet's resource registry as far as the test host plays it: tokens it
 * mints (`r` + 80 hex), at most 32 provisional per parent and 256 records,
 * and releases; `TestHost.disposeResources` sends the disposals.
 */
export class HostResources {
  readonly issued = new Map<string, { type: string; parent: number; released: boolean }>();

  answer(method: string, params: JsonRecord): { result: unknown } | { refused: string } {
    if (method === "resource/register") {
      const parent = Number(params.parent_request_id);
      if (this.issued.size >= 256 || [...this.issued.values()].filter((r) => r.parent === parent).length >= 32) return { refused: "quota_exceeded" };
      const token = `r${[...crypto.getRandomValues(new Uint8Array(40))].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
      this.issued.set(token, { type: String(params.type), parent, released: false });
      return { result: { $resource: token, type: params.type } };
    }
    const ref = params.resource as JsonRecord;
    const record = this.issued.get(String(ref.$resource));
    if (!record || record.released || record.type !== ref.type) return { refused: "resource_unavailable" };
    record.released = true;
    return { result: { retired: true, cleanup: "pending" } };
  }
}

/**
 * The results of a `resource/dispose` reply when it reports each of `refs`,
 * in order, `completed` or `failed`; else undefined (octet then ends the
 * process generation).
 */
export function disposalResults(reply: unknown, refs: readonly JsonRecord[]): { resource: JsonRecord; status: string }[] | undefined {
  const results = Array.isArray((reply as JsonRecord | null)?.results) ? ((reply as JsonRecord).results as JsonRecord[]) : undefined;
  const ok = results?.length === refs.length && results.every((r, i) => JSON.stringify(r.resource) === JSON.stringify(refs[i]) && (r.status === "completed" || r.status === "failed"));
  return ok ? (results as { resource: JsonRecord; status: string }[]) : undefined;
}

function defaultReply(method: string, params: JsonRecord, manifest: HostManifest): { result: unknown } | { error: { code: number; message: string } } {
  switch (method) {
    case "confirmation/request":
      return { result: { confirmed: false } };
    case "input/request":
      return { result: { value: null } };
    case "artifact/publish": {
      const hex = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
      return { result: { artifact_id: `artifact_${hex}` } };
    }
    case "policy/evaluate":
      return { result: { decision: "deny" } };
    case "secret/get":
      return manifest.capabilities.secrets.includes(params.name as string)
        ? { error: { code: ErrorCode.ServiceUnavailable, message: "secret service is unavailable" } }
        : { error: { code: ErrorCode.InvalidParams, message: "secret name is not declared by this extension" } };
    case "composer/get":
      return { result: { text: "" } };
    case "session/append_entry": {
      const entryId = `entry-${crypto.randomUUID()}`;
      if (!params.session_leaf) return { result: { entry_id: entryId } };
      // A leaf append: the head moves to the new entry and a fresh single-use grant follows.
      const leaf = params.session_leaf as JsonRecord;
      const successor = { grant_id: [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0")).join(""), activation_epoch: leaf.activation_epoch, operation_id: leaf.operation_id };
      return { result: { entry_id: entryId, head: entryId, successor } };
    }
    case "session/wait_for_idle":
    case "session/create":
    case "session/fork":
    case "session/reload":
      return { result: { session_id: "test-session" } };
    case "session/switch":
      return { result: { session_id: params.session_id } };
    case "session/compact":
      return { result: { entry_id: "compaction-1", summary: "compacted by the test host", first_kept: "entry-1" } };
    case "composer/set":
    case "composer/insert":
    case "session/set_name":
    case "session/set_label":
    case "session/send_user_message":
    case "tools/set_active":
      return { result: {} };
    default:
      if (method.startsWith("agent/")) return { error: { code: ErrorCode.ServiceUnavailable, message: "agent service is unavailable" } };
      return { error: { code: ErrorCode.MethodNotFound, message: `method not found: ${method}` } };
  }
}
