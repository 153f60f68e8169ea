/**
 * The session services of API 0.4 (docs/api-0.4.md "Session services"): the
 * composer, session entries, injected user messages, the active tool set,
 * and session control and compaction. Each needs its negotiated feature
 * (`-32601` otherwise, nothing sent) and carries the calling handler's
 * request as `parent_request_id`. Argument problems are plain `Error`s.
 */
import { isObject, utf8Bytes as bytes } from "../check.ts";
import { ErrorCode, RpcError } from "../errors.ts";
import { type HostMethod, IDENT } from "../protocol.ts";
import type { RequestId } from "../wire/ids.ts";
import type { HostAccess } from "./host-session.ts";
import { nextGrant, useGrant } from "./session-hooks.ts";
import type { JsonObject } from "./types.ts";

const COMPOSER_TEXT_BYTES = 256 * 1024;
const ENTRY_TYPE_BYTES = 128;
const ENTRY_DATA_BYTES = 64 * 1024;
const NAME_BYTES = 4096;
const ENTRY_ID_BYTES = 256;
const USER_MESSAGE_BYTES = 256 * 1024;
const ACTIVE_TOOLS = 256;
const SESSION_ID_BYTES = 256;
const INSTRUCTIONS_BYTES = 16 * 1024;
/** Terminal control characters octet refuses in text it shows (tab and newline pass). */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/;

const invalidReply = (method: string) => new RpcError(ErrorCode.InternalError, `invalid ${method} response`);

type Options = { parentRequestId?: RequestId };

/** A text argument: a string of at most `max` bytes without terminal controls. */
function text(value: unknown, what: string, max: number, nonBlank = false): string {
  if (typeof value !== "string") throw new Error(`${what} must be a string`);
  if (nonBlank && value.trim() === "") throw new Error(`${what} must not be blank`);
  if (CONTROL.test(value)) throw new Error(`${what} may contain no control characters but tab and newline`);
  if (bytes(value) > max) throw new Error(`${what} exceeds ${max} bytes`);
  return value;
}

/** The author's call for each method, as refusals name it. */
const CALLS: Readonly<Record<string, string>> = {
  "composer/get": "ext.composer.get()",
  "composer/set": "ext.composer.set()",
  "composer/insert": "ext.composer.insert()",
  "session/append_entry": "ext.session.appendEntry()",
  "session/set_name": "ext.session.setName()",
  "session/set_label": "ext.session.setLabel()",
  "session/send_user_message": "ext.session.sendUserMessage()",
  "tools/set_active": "ext.session.setActiveTools()",
  "session/wait_for_idle": "ext.session.waitForIdle()",
  "session/create": "ext.session.create()",
  "session/fork": "ext.session.fork()",
  "session/switch": "ext.session.switchTo()",
  "session/reload": "ext.session.reload()",
};

/** Send `method` under the caller's request: its feature (`HOST_REQUEST_FEATURES`), then the parent. */
async function request(access: HostAccess, method: HostMethod, params: JsonObject, options: Options): Promise<unknown> {
  return access.session().request(method, params, CALLS[method] ?? method, access.caller(), { parentRequestId: options.parentRequestId });
}

function emptyReply(method: string, reply: unknown): void {
  if (!isObject(reply)) throw invalidReply(method);
}

/** `composer/*` (feature `composer`): the user's input line. */
export const composer = {
  async get(access: HostAccess, options: Options = {}): Promise<string> {
    const reply = await request(access, "composer/get", {}, options);
    if (!isObject(reply) || typeof reply.text !== "string") throw invalidReply("composer/get");
    return reply.text;
  },
  async set(access: HostAccess, value: string, options: Options = {}): Promise<void> {
    text(value, "composer text", COMPOSER_TEXT_BYTES);
    emptyReply("composer/set", await request(access, "composer/set", { text: value }, options));
  },
  async insert(access: HostAccess, value: string, options: Options = {}): Promise<void> {
    text(value, "composer text", COMPOSER_TEXT_BYTES);
    emptyReply("composer/insert", await request(access, "composer/insert", { text: value }, options));
  },
};

/** `session/append_entry`, `set_name`, `set_label` (feature `session_entries`). */
export const entries = {
  async append(access: HostAccess, entryType: string, data: unknown, options: Options = {}): Promise<string> {
    text(entryType, "entry type", ENTRY_TYPE_BYTES, true);
    const encoded = JSON.stringify(data);
    if (encoded === undefined) throw new Error("entry data must be JSON");
    if (bytes(encoded) > ENTRY_DATA_BYTES) throw new Error(`entry data is ${bytes(encoded)} JSON bytes; limit is ${ENTRY_DATA_BYTES}`);
    // Inside a session-operation hook with a grant, the append goes through the session leaf.
    const scope = access.caller();
    const grant = nextGrant(scope);
    if (grant === null) throw new RpcError(ErrorCode.InvalidRequest, "this hook's session_leaf grant is used up (the host returned no successor)");
    const params: JsonObject = { entry_type: entryType, data };
    if (grant) params.session_leaf = grant;
    const reply = await request(access, "session/append_entry", params, options);
    if (!isObject(reply) || typeof reply.entry_id !== "string") throw invalidReply("session/append_entry");
    if (grant) {
      if (reply.head !== reply.entry_id || !("successor" in reply)) throw invalidReply("session/append_entry");
      useGrant(scope!, reply.successor);
    }
    return reply.entry_id;
  },
  async setName(access: HostAccess, name: string, options: Options = {}): Promise<void> {
    text(name, "session name", NAME_BYTES);
    emptyReply("session/set_name", await request(access, "session/set_name", { name }, options));
  },
  async setLabel(access: HostAccess, entryId: string, label: string, options: Options = {}): Promise<void> {
    text(entryId, "entry id", ENTRY_ID_BYTES, true);
    text(label, "label", NAME_BYTES);
    emptyReply("session/set_label", await request(access, "session/set_label", { entry_id: entryId, label }, options));
  },
};

/**
 * `session/send_user_message` (feature `message_injection`): queue text as if
 * the user typed it. Only `{text}` is sent, the one shape every octet
 * version accepts (docs/api-0.4.md, "Where the sources disagree").
 */
export async function sendUserMessage(access: HostAccess, message: string, options: Options = {}): Promise<void> {
  text(message, "user message", USER_MESSAGE_BYTES, true);
  emptyReply("session/send_user_message", await request(access, "session/send_user_message", { text: message }, options));
}

/** `tools/set_active` (feature `active_tools`): the complete set of tools the model may use. */
export async function setActiveTools(access: HostAccess, names: string[], options: Options = {}): Promise<void> {
  if (!Array.isArray(names) || names.length > ACTIVE_TOOLS) throw new Error(`active tools must be an array of at most ${ACTIVE_TOOLS} names`);
  for (const name of names) if (typeof name !== "string" || !IDENT.test(name)) throw new Error(`active tool name ${JSON.stringify(name)} must match ^[A-Za-z_][A-Za-z0-9_.-]{0,63}$`);
  if (new Set(names).size !== names.length) throw new Error("active tool names must be unique");
  emptyReply("tools/set_active", await request(access, "tools/set_active", { names: [...names] }, options));
}

/** Session control (`session_control_v1`, API 0.4): each resolves to the resulting session id. */
export type SessionControl = "session/wait_for_idle" | "session/create" | "session/fork" | "session/switch" | "session/reload";

export async function controlSession(access: HostAccess, method: SessionControl, sessionId: string | undefined, options: Options = {}): Promise<string> {
  const params: JsonObject = {};
  if (method === "session/switch") params.session_id = text(sessionId, "session id", SESSION_ID_BYTES, true);
  const reply = await request(access, method, params, options);
  if (!isObject(reply) || typeof reply.session_id !== "string") throw invalidReply(method);
  return reply.session_id;
}

/** What `session/compact` reports once the compaction is committed. */
export interface CompactionResult {
  entry_id: string;
  summary: string;
  first_kept: string;
}

/**
 * `session/compact` (`session_compaction_v1`, API 0.4). octet refuses it
 * while the calling request is live, so it is sent right after that
 * request's successful reply; if the request fails or is cancelled, nothing
 * is sent and the promise rejects. Call it from a tool or command handler
 * (the request's `resource_owner` is required), and do not await it there.
 */
export function compactSession(access: HostAccess, options: { customInstructions?: string } = {}): Promise<CompactionResult> {
  try {
    const host = access.session();
    host.requireFeature("session_compaction_v1", "ext.session.compact()");
    if (options.customInstructions !== undefined) text(options.customInstructions, "custom instructions", INSTRUCTIONS_BYTES);
    const scope = access.caller();
    if (!scope?.afterReply) throw new Error("session compaction is requested from inside a tool or command handler");
    const context = isObject(scope.params) && isObject(scope.params.context) ? scope.params.context : undefined;
    const owner = context?.resource_owner;
    if (!isObject(owner)) throw new RpcError(ErrorCode.InvalidParams, "session/compact needs the request's resource_owner, which the host did not send");
    const params: JsonObject = { parent_request_id: scope.id, resource_owner: owner };
    if (options.customInstructions !== undefined) params.custom_instructions = options.customInstructions;
    return new Promise((resolve, reject) => {
      scope.afterReply!((succeeded) => {
        if (!succeeded) return reject(new RpcError(ErrorCode.RequestCancelled, "session compaction not requested: the request did not succeed"));
        host.request("session/compact", params, "ext.session.compact()", undefined, { parent: "none" }).then((reply) => {
          if (!isObject(reply) || typeof reply.entry_id !== "string" || typeof reply.summary !== "string" || typeof reply.first_kept !== "string") throw invalidReply("session/compact");
          resolve({ entry_id: reply.entry_id, summary: reply.summary, first_kept: reply.first_kept });
        }).catch(reject);
      });
    });
  } catch (error) {
    return Promise.reject(error);
  }
}
