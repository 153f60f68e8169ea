/**
 * Local checks for `presentation/update` (spec §4.5): the snapshot schema and
 * bounds of §6.7 / §7 and the resource owner triple of §6.2. Every violation is
 * a plain `Error` (an argument error, §8.11) whose message is `<json path>: <rule>`,
 * so nothing the host would treat as fatal is ever written.
 */

/** Largest portable integer (2^53−1): revision, counters and timestamps. */
const MAX_PORTABLE = Number.MAX_SAFE_INTEGER;
const MAX_SNAPSHOT_BYTES = 256 * 1024;
const MAX_TEXT_BYTES = 1024;
const MAX_BODY_BYTES = 64 * 1024;
const MAX_ACTIVITIES = 128;
const MAX_NODES = 256;
const MAX_ACTIONS = 64;
const MAX_ARGUMENTS = 32;
const MAX_REFERENCES = 8;
const MAX_TREE_DEPTH = 16;
const MAX_SESSION_ID_BYTES = 512;

/** Item state shared by status, activities and nodes (§6.7). */
export type PresentationState =
  | "empty"
  | "loading"
  | "pending"
  | "active"
  | "running"
  | "succeeded"
  | "failed"
  | "cancelled"
  | "degraded"
  | "stopped"
  | "unavailable";

const STATES: readonly string[] = [
  "empty", "loading", "pending", "active", "running", "succeeded",
  "failed", "cancelled", "degraded", "stopped", "unavailable",
];

/** Overall status line. */
export interface PresentationStatus {
  state: PresentationState;
  label: string;
  detail?: string;
}

/** Usage counters of an activity; every counter is optional (a partial bag still renders). */
export interface PresentationMetrics {
  tool_calls?: number;
  input_tokens?: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  output_tokens?: number;
  /** Must not exceed `output_tokens` when both are given. */
  reasoning_tokens?: number;
  cost_microdollars?: number;
}

/** Kinds a reference may point at. */
export type PresentationReferenceKind = "session" | "artifact" | "resource" | "url";

/** A link from an item to a session, artifact, resource or public web URL (`id` is the URL for `url`). */
export interface PresentationReference {
  kind: PresentationReferenceKind;
  id: string;
  label?: string;
}

/** One entry of the activity feed. */
export interface PresentationActivity {
  id: string;
  kind: string;
  state: PresentationState;
  summary: string;
  provenance?: string;
  /** Milliseconds since the epoch; `null` means unknown (as in the §6.7 example). */
  started_at_ms?: number | null;
  /** Milliseconds since the epoch, ≥ `started_at_ms`; `null` while still running. */
  completed_at_ms?: number | null;
  metrics?: PresentationMetrics;
  references?: PresentationReference[];
}

/** One list row or tree node. */
export interface PresentationNode {
  id: string;
  /** Tree collections only; `null` (or absent) marks a root. */
  parent_id?: string | null;
  state?: PresentationState;
  label: string;
  secondary?: string;
  /** Ids of entries in the snapshot's `actions`, without repeats. */
  action_ids?: string[];
  references?: PresentationReference[];
}

/** Detail pane for the selected node. */
export interface PresentationDetail {
  /** If present, equals the collection's `selected_node_id`. */
  node_id?: string;
  title?: string;
  /** Up to 64 KiB; may contain LF, CR and TAB. */
  body?: string;
  references?: PresentationReference[];
}

/** A flat list or a tree of nodes. */
export interface PresentationCollection {
  kind: "list" | "tree";
  title?: string;
  nodes: PresentationNode[];
  selected_node_id?: string;
  detail?: PresentationDetail;
}

/** A user-invokable action: runs a declared command with fixed arguments. */
export interface PresentationAction {
  id: string;
  label: string;
  /** Must be a command declared in the manifest. */
  command: string;
  arguments?: string[];
  destructive?: boolean;
}

/** A complete `presentation/update` snapshot (spec §6.7). */
export interface PresentationSnapshot {
  /** Integer 0..2^53−1, strictly increasing within a process generation. */
  revision: number;
  status?: PresentationStatus;
  activities?: PresentationActivity[];
  collection?: PresentationCollection;
  actions?: PresentationAction[];
}

/** The `resource_owner` triple of spec §6.2. */
export interface ResourceOwnerTriple {
  session_id: string;
  extension_instance_id: string;
  process_generation: number;
}

type Obj = { [key: string]: unknown };

function fail(path: string, rule: string): never {
  throw new Error(`${path}: ${rule}`);
}

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Require a plain object whose defined keys are all in `allowed`. */
function object(value: unknown, path: string, allowed: readonly string[]): Obj {
  if (!isObj(value)) fail(path, "must be an object");
  for (const key of Object.keys(value)) {
    if (value[key] !== undefined && !allowed.includes(key)) fail(`${path}.${key}`, `unknown key (allowed: ${allowed.join(", ")})`);
  }
  return value;
}

function has(obj: Obj, key: string): boolean {
  return obj[key] !== undefined;
}

function array(value: unknown, path: string, max: number): unknown[] {
  if (!Array.isArray(value)) fail(path, "must be an array");
  if (value.length > max) fail(path, `at most ${max} entries allowed, got ${value.length}`);
  return value;
}

function portableInteger(value: unknown, path: string, min = 0): number {
  if (typeof value !== "number" || !Number.isInteger(value)) fail(path, `must be a portable integer ${min}..2^53-1`);
  if (value < min || value > MAX_PORTABLE) fail(path, `must be a portable integer ${min}..2^53-1, got ${value}`);
  return value;
}

function hex(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
}

function isFormatting(cp: number): boolean {
  return cp === 0x061c || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) ||
    cp === 0x2060 || (cp >= 0x2066 && cp <= 0x2069) || cp === 0xfeff;
}

function isControl(cp: number): boolean {
  return cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f);
}

/**
 * Scan `s` as well-formed Unicode and return its UTF-8 length. `allowed` are
 * control characters tolerated here; formatting characters fail when `noFormatting`.
 */
function scan(s: string, path: string, allowed: readonly number[], noFormatting: boolean): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    let cp = s.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdfff) {
      const next = s.charCodeAt(i + 1);
      if (cp > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) fail(path, `contains a lone surrogate (${hex(cp)})`);
      cp = 0x10000 + ((cp - 0xd800) << 10) + (next - 0xdc00);
      i++;
    }
    if (isControl(cp) && !allowed.includes(cp)) {
      fail(path, cp === 0x1b ? "contains ESC (U+001B)" : `contains a control character (${hex(cp)})`);
    }
    if (noFormatting && isFormatting(cp)) fail(path, `contains a bidi/zero-width formatting character (${hex(cp)})`);
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** A label-class string: non-blank, ≤ 1024 bytes, no control or formatting characters. */
function label(value: unknown, path: string): string {
  if (typeof value !== "string") fail(path, "must be a string");
  if (value.trim() === "") fail(path, "must not be blank");
  if (scan(value, path, [], true) > MAX_TEXT_BYTES) fail(path, `exceeds ${MAX_TEXT_BYTES} UTF-8 bytes`);
  return value;
}

const ID_PATTERN = /^[A-Za-z0-9_.:\/-]+$/;

/** An id-class string: 1..1024 bytes of `[A-Za-z0-9_.:/-]`. */
function id(value: unknown, path: string): string {
  if (typeof value !== "string") fail(path, "must be a string");
  if (value === "") fail(path, "must not be blank");
  if (!ID_PATTERN.test(value)) fail(path, "characters outside A-Z a-z 0-9 _ - . : /");
  if (value.length > MAX_TEXT_BYTES) fail(path, `exceeds ${MAX_TEXT_BYTES} bytes`);
  return value;
}

/** Ids of a list, each checked and unique. */
function uniqueIds(items: readonly unknown[], path: string, read: (item: unknown, path: string) => string): Set<string> {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const p = `${path}[${i}]`;
    const value = read(item, p);
    if (seen.has(value)) fail(p, `duplicate id "${value}"`);
    seen.add(value);
  });
  return seen;
}

function state(value: unknown, path: string): void {
  if (typeof value !== "string" || !STATES.includes(value)) fail(path, `must be one of ${STATES.join(", ")}`);
}

function optionalLabel(obj: Obj, key: string, path: string): void {
  if (has(obj, key)) label(obj[key], `${path}.${key}`);
}

function required(obj: Obj, key: string, path: string): unknown {
  if (!has(obj, key)) fail(`${path}.${key}`, "is required");
  return obj[key];
}

const REFERENCE_KINDS: readonly string[] = ["session", "artifact", "resource", "url"];

/** References of one item: ≤ 8, unique by (kind, id). */
function references(obj: Obj, path: string): void {
  if (!has(obj, "references")) return;
  const p = `${path}.references`;
  const list = array(obj.references, p, MAX_REFERENCES);
  const seen = new Set<string>();
  list.forEach((item, i) => {
    const rp = `${p}[${i}]`;
    const ref = object(item, rp, ["kind", "id", "label"]);
    const kind = required(ref, "kind", rp);
    if (typeof kind !== "string" || !REFERENCE_KINDS.includes(kind)) fail(`${rp}.kind`, `must be one of ${REFERENCE_KINDS.join(", ")}`);
    const target = label(required(ref, "id", rp), `${rp}.id`);
    optionalLabel(ref, "label", rp);
    if (kind === "url") publicUrl(target, `${rp}.id`);
    const key = `${kind}\u0000${target}`;
    if (seen.has(key)) fail(rp, "duplicate reference (references must be unique)");
    seen.add(key);
  });
}

/** Parse a dotted-quad IPv4 literal into its four octets, or `undefined`. */
function ipv4(host: string): number[] | undefined {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.map(Number);
}

function blockedIpv4(o: readonly number[]): boolean {
  const [a = 0, b = 0] = o;
  return a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || a >= 224;
}

/**
 * Parse an IPv6 literal (without brackets) into eight 16-bit groups, or
 * `undefined`. Input is a WHATWG URL hostname, which is always serialized as
 * hex groups (`[::ffff:127.0.0.1]` becomes `[::ffff:7f00:1]`), never dotted.
 */
function ipv6(host: string): number[] | undefined {
  const halves = host.split("::");
  if (halves.length > 2) return undefined;
  const groups = (s: string | undefined): number[] | undefined => {
    if (s === undefined || s === "") return [];
    const out: number[] = [];
    for (const g of s.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !rest) return undefined;
  let all: number[];
  if (halves.length === 2) {
    const fill = 8 - head.length - rest.length;
    if (fill < 1) return undefined;
    all = [...head, ...new Array<number>(fill).fill(0), ...rest];
  } else {
    all = head;
  }
  return all.length === 8 ? all : undefined;
}

function blockedIpv6(g: readonly number[]): boolean {
  const at = (i: number): number => g[i] ?? 0;
  const embedded = [at(6) >> 8, at(6) & 0xff, at(7) >> 8, at(7) & 0xff];
  const zeros = (n: number): boolean => g.slice(0, n).every((x) => x === 0);
  if (zeros(8)) return true; // unspecified
  if (zeros(7) && at(7) === 1) return true; // loopback
  if ((at(0) & 0xfe00) === 0xfc00) return true; // unique local (private)
  if ((at(0) & 0xffc0) === 0xfe80 || (at(0) & 0xffc0) === 0xfec0) return true; // link-local, site-local
  if ((at(0) & 0xff00) === 0xff00) return true; // multicast
  if (zeros(5) && (at(5) === 0xffff || at(5) === 0)) return blockedIpv4(embedded); // IPv4-mapped / -compatible
  if (at(0) === 0x64 && at(1) === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return blockedIpv4(embedded); // NAT64
  return false;
}

/** A `url` reference: absolute http(s), no credentials, not a local or private target. */
function publicUrl(raw: string, path: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    fail(path, "must be an absolute http/https URL");
  }
  // Require the explicit `scheme://` form: WHATWG also accepts `http:host`, other parsers may not.
  if ((url.protocol !== "http:" && url.protocol !== "https:") || !/^https?:\/\//i.test(raw.trim())) {
    fail(path, "must be an absolute http/https URL");
  }
  if (url.username !== "" || url.password !== "" || /^[a-z][a-z0-9+.-]*:[\/\\]*[^\/\\?#]*@/i.test(raw.trim())) {
    fail(path, "URL must not contain credentials");
  }
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (host === "" || host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local")) {
    fail(path, `URL must not target a local host (${host || "empty"})`);
  }
  const v4 = ipv4(host);
  if (v4 && blockedIpv4(v4)) fail(path, `URL must not target a private, loopback, link-local, unspecified or multicast address (${host})`);
  if (host.startsWith("[") && host.endsWith("]")) {
    const v6 = ipv6(host.slice(1, -1));
    if (!v6 || blockedIpv6(v6)) fail(path, `URL must not target a private, loopback, link-local, unspecified or multicast address (${host})`);
  }
}

const METRICS = [
  "tool_calls", "input_tokens", "cache_read_tokens", "cache_write_tokens",
  "output_tokens", "reasoning_tokens", "cost_microdollars",
] as const;

function metrics(value: unknown, path: string): void {
  const m = object(value, path, METRICS);
  for (const key of METRICS) if (has(m, key)) portableInteger(m[key], `${path}.${key}`);
  if (has(m, "reasoning_tokens") && has(m, "output_tokens") && (m.reasoning_tokens as number) > (m.output_tokens as number)) {
    fail(`${path}.reasoning_tokens`, "must not exceed output_tokens");
  }
}

/** A nullable timestamp (`null` appears in the §6.7 example). */
function timestamp(obj: Obj, key: string, path: string): number | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  return portableInteger(value, `${path}.${key}`);
}

function activity(item: unknown, path: string): string {
  const a = object(item, path, [
    "id", "kind", "state", "summary", "provenance", "started_at_ms", "completed_at_ms", "metrics", "references",
  ]);
  const result = id(required(a, "id", path), `${path}.id`);
  id(required(a, "kind", path), `${path}.kind`);
  state(required(a, "state", path), `${path}.state`);
  // summary is required: the example carries it and it is the activity's only human text.
  label(required(a, "summary", path), `${path}.summary`);
  optionalLabel(a, "provenance", path);
  const started = timestamp(a, "started_at_ms", path);
  const completed = timestamp(a, "completed_at_ms", path);
  if (started !== undefined && completed !== undefined && completed < started) {
    fail(`${path}.completed_at_ms`, "must not be before started_at_ms");
  }
  if (has(a, "metrics")) metrics(a.metrics, `${path}.metrics`);
  references(a, path);
  return result;
}

function action(item: unknown, path: string, declaredCommands: readonly string[]): string {
  const a = object(item, path, ["id", "label", "command", "arguments", "destructive"]);
  const result = id(required(a, "id", path), `${path}.id`);
  label(required(a, "label", path), `${path}.label`);
  const command = id(required(a, "command", path), `${path}.command`);
  if (!declaredCommands.includes(command)) fail(`${path}.command`, `"${command}" is not a declared command`);
  if (has(a, "arguments")) {
    array(a.arguments, `${path}.arguments`, MAX_ARGUMENTS).forEach((arg, i) => label(arg, `${path}.arguments[${i}]`));
  }
  if (has(a, "destructive") && typeof a.destructive !== "boolean") fail(`${path}.destructive`, "must be a boolean");
  return result;
}

function node(item: unknown, path: string, kind: string, actionIds: ReadonlySet<string>): string {
  const n = object(item, path, ["id", "parent_id", "state", "label", "secondary", "action_ids", "references"]);
  const result = id(required(n, "id", path), `${path}.id`);
  // parent_id null means "no parent" (the example's tree root), so it is tolerated in lists too.
  if (n.parent_id !== undefined && n.parent_id !== null) {
    if (kind === "list") fail(`${path}.parent_id`, "list nodes may not have parent_id");
    id(n.parent_id, `${path}.parent_id`);
  }
  if (has(n, "state")) state(n.state, `${path}.state`);
  label(required(n, "label", path), `${path}.label`);
  optionalLabel(n, "secondary", path);
  if (has(n, "action_ids")) {
    const p = `${path}.action_ids`;
    const ids = array(n.action_ids, p, MAX_ACTIONS);
    const seen = new Set<string>();
    ids.forEach((value, i) => {
      const ref = id(value, `${p}[${i}]`);
      if (!actionIds.has(ref)) fail(`${p}[${i}]`, `"${ref}" is not a declared action`);
      if (seen.has(ref)) fail(`${p}[${i}]`, `repeated action id "${ref}"`);
      seen.add(ref);
    });
  }
  references(n, path);
  return result;
}

/** Tree rules: parents exist, no self-parent, no cycles, depth ≤ 16 (a root has depth 1). */
function checkTree(nodes: readonly Obj[], path: string): void {
  const parents = new Map<string, string | undefined>();
  for (const n of nodes) parents.set(n.id as string, typeof n.parent_id === "string" ? n.parent_id : undefined);
  nodes.forEach((n, i) => {
    const parent = n.parent_id;
    if (typeof parent !== "string") return;
    if (parent === n.id) fail(`${path}[${i}].parent_id`, "a node may not be its own parent");
    if (!parents.has(parent)) fail(`${path}[${i}].parent_id`, `parent "${parent}" does not exist`);
  });
  nodes.forEach((n, i) => {
    const chain = new Set<string>();
    let current: string | undefined = n.id as string;
    while (current !== undefined) {
      if (chain.has(current)) fail(`${path}[${i}].parent_id`, "parent chain forms a cycle");
      chain.add(current);
      current = parents.get(current);
    }
    if (chain.size > MAX_TREE_DEPTH) fail(`${path}[${i}]`, `tree depth ${chain.size} exceeds ${MAX_TREE_DEPTH}`);
  });
}

function collection(value: unknown, path: string, actionIds: ReadonlySet<string>): void {
  const c = object(value, path, ["kind", "title", "nodes", "selected_node_id", "detail"]);
  const kind = required(c, "kind", path);
  if (kind !== "list" && kind !== "tree") fail(`${path}.kind`, "must be one of list, tree");
  optionalLabel(c, "title", path);
  // nodes is required: the spec gives no default for it (unlike activities/actions).
  const list = array(required(c, "nodes", path), `${path}.nodes`, MAX_NODES);
  const nodeIds = uniqueIds(list, `${path}.nodes`, (item, p) => node(item, p, kind, actionIds));
  if (kind === "tree") checkTree(list as Obj[], `${path}.nodes`);
  let selected: string | undefined;
  if (has(c, "selected_node_id")) {
    selected = id(c.selected_node_id, `${path}.selected_node_id`);
    if (!nodeIds.has(selected)) fail(`${path}.selected_node_id`, `"${selected}" does not name a node`);
  }
  if (has(c, "detail")) {
    const dp = `${path}.detail`;
    const d = object(c.detail, dp, ["node_id", "title", "body", "references"]);
    if (has(d, "node_id")) {
      const target = id(d.node_id, `${dp}.node_id`);
      if (!nodeIds.has(target)) fail(`${dp}.node_id`, `"${target}" does not name a node`);
      if (target !== selected) fail(`${dp}.node_id`, "must equal selected_node_id");
    }
    optionalLabel(d, "title", dp);
    if (has(d, "body")) {
      // body may be empty: the non-blank rule is stated for labels only.
      if (typeof d.body !== "string") fail(`${dp}.body`, "must be a string");
      if (scan(d.body, `${dp}.body`, [0x09, 0x0a, 0x0d], true) > MAX_BODY_BYTES) fail(`${dp}.body`, `exceeds ${MAX_BODY_BYTES} UTF-8 bytes`);
    }
    references(d, dp);
  }
}

/**
 * Check a `presentation/update` snapshot against spec §6.7; `declaredCommands`
 * are the manifest's command names. Throws a plain `Error` on the first violation.
 */
export function checkSnapshot(snapshot: unknown, declaredCommands: readonly string[]): void {
  const s = object(snapshot, "snapshot", ["revision", "status", "activities", "collection", "actions"]);
  portableInteger(required(s, "revision", "snapshot"), "snapshot.revision");
  if (has(s, "status")) {
    const st = object(s.status, "snapshot.status", ["state", "label", "detail"]);
    state(required(st, "state", "snapshot.status"), "snapshot.status.state");
    label(required(st, "label", "snapshot.status"), "snapshot.status.label");
    optionalLabel(st, "detail", "snapshot.status");
  }
  if (has(s, "activities")) {
    uniqueIds(array(s.activities, "snapshot.activities", MAX_ACTIVITIES), "snapshot.activities", activity);
  }
  let actionIds = new Set<string>();
  if (has(s, "actions")) {
    const list = array(s.actions, "snapshot.actions", MAX_ACTIONS);
    actionIds = uniqueIds(list, "snapshot.actions", (item, p) => action(item, p, declaredCommands));
  }
  if (has(s, "collection")) collection(s.collection, "snapshot.collection", actionIds);
  const size = Buffer.byteLength(JSON.stringify(s));
  if (size > MAX_SNAPSHOT_BYTES) fail("snapshot", `encoded size ${size} bytes exceeds ${MAX_SNAPSHOT_BYTES}`);
}

/** Check a `resource_owner` (spec §6.2) and return a copy holding exactly the triple. */
export function checkResourceOwner(owner: unknown): ResourceOwnerTriple {
  const path = "resource_owner";
  const keys = ["session_id", "extension_instance_id", "process_generation"];
  const o = object(owner, path, keys);
  const sessionId = required(o, "session_id", path);
  if (typeof sessionId !== "string" || sessionId.trim() === "") fail(`${path}.session_id`, "must be a non-blank string");
  if (scan(sessionId, `${path}.session_id`, [], false) > MAX_SESSION_ID_BYTES) {
    fail(`${path}.session_id`, `exceeds ${MAX_SESSION_ID_BYTES} UTF-8 bytes`);
  }
  const instance = required(o, "extension_instance_id", path);
  if (typeof instance !== "string" || instance.trim() === "") fail(`${path}.extension_instance_id`, "must be a non-blank string");
  const generation = portableInteger(required(o, "process_generation", path), `${path}.process_generation`, 1);
  return { session_id: sessionId, extension_instance_id: instance, process_generation: generation };
}
