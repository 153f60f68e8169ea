/**
 * The test host's own reading of a `presentation/update` snapshot, written
 * from the protocol (docs/protocol-0.2.md §6.7, §7) and not from the
 * runtime's checker: a runtime that gets a rule wrong fails here.
 *
 * Where the protocol does not say whether a member is required, the members
 * a reader cannot do without are: an activity's `id`, `kind`, `state` and
 * `summary`, a node's `id` and `label`, a collection's `kind` and `nodes`, an
 * action's `id`, `label` and `command`, a reference's `kind` and `id`.
 */
import { isObject, type JsonRecord } from "../check.ts";
import { urlReferenceProblem } from "./url-reference-rule.ts";

/** `state` of the status, of an activity and of a node. */
const STATES = new Set(["empty", "loading", "pending", "active", "running", "succeeded", "failed", "cancelled", "degraded", "stopped", "unavailable"]);
const REFERENCE_KINDS = new Set(["session", "artifact", "resource", "url"]);
const METRICS = ["tool_calls", "input_tokens", "cache_read_tokens", "cache_write_tokens", "output_tokens", "reasoning_tokens", "cost_microdollars"];
/** Identifier characters: `A–Z a–z 0–9 _ - . : /`. */
const ID_CHARS = /^[A-Za-z0-9_\-.:/]+$/;

const LIMIT = {
  snapshotBytes: 256 * 1024,
  textBytes: 1024,
  bodyBytes: 64 * 1024,
  activities: 128,
  nodes: 256,
  actions: 64,
  arguments: 32,
  references: 8,
  treeDepth: 16,
};

/** Thrown inside this module only; {@link snapshotViolation} turns it into its answer. */
class Broken {
  constructor(readonly text: string) {}
}

function broken(path: string, problem: string): never {
  throw new Broken(`${path}: ${problem}`);
}

/**
 * The first rule `snapshot` breaks, as `<path>: <problem>`, or undefined when
 * octet would take it. `commands` are the manifest's declared command names.
 */
export function snapshotViolation(snapshot: unknown, commands: readonly string[]): string | undefined {
  try {
    readSnapshot(snapshot, commands);
    return undefined;
  } catch (error) {
    if (error instanceof Broken) return error.text;
    throw error;
  }
}

function readSnapshot(value: unknown, commands: readonly string[]): void {
  const snapshot = record(value, "snapshot", ["revision", "status", "activities", "collection", "actions"]);
  counter(snapshot.revision, "snapshot.revision");
  if (snapshot.status !== undefined) {
    const status = record(snapshot.status, "snapshot.status", ["state", "label", "detail"]);
    itemState(status.state, "snapshot.status.state");
    label(status.label, "snapshot.status.label");
    if (status.detail !== undefined) label(status.detail, "snapshot.status.detail");
  }
  if (snapshot.activities !== undefined) distinct(list(snapshot.activities, "snapshot.activities", LIMIT.activities).map((item, i) => activity(item, `snapshot.activities[${i}]`)), "snapshot.activities");
  const actions = snapshot.actions === undefined ? [] : list(snapshot.actions, "snapshot.actions", LIMIT.actions).map((item, i) => action(item, `snapshot.actions[${i}]`, commands));
  distinct(actions, "snapshot.actions");
  if (snapshot.collection !== undefined) collection(snapshot.collection, "snapshot.collection", new Set(actions));
  const size = new TextEncoder().encode(JSON.stringify(value)).length;
  if (size > LIMIT.snapshotBytes) broken("snapshot", `encoded size ${size} bytes is over ${LIMIT.snapshotBytes}`);
}

function activity(value: unknown, path: string): string {
  const a = record(value, path, ["id", "kind", "state", "summary", "provenance", "started_at_ms", "completed_at_ms", "metrics", "references"]);
  const own = identifier(a.id, `${path}.id`);
  identifier(a.kind, `${path}.kind`);
  itemState(a.state, `${path}.state`);
  label(a.summary, `${path}.summary`);
  if (a.provenance !== undefined) label(a.provenance, `${path}.provenance`);
  const started = a.started_at_ms === undefined || a.started_at_ms === null ? undefined : counter(a.started_at_ms, `${path}.started_at_ms`);
  const completed = a.completed_at_ms === undefined || a.completed_at_ms === null ? undefined : counter(a.completed_at_ms, `${path}.completed_at_ms`);
  if (started !== undefined && completed !== undefined && completed < started) broken(`${path}.completed_at_ms`, "is before started_at_ms");
  if (a.metrics !== undefined) {
    const m = record(a.metrics, `${path}.metrics`, METRICS);
    for (const key of METRICS) if (m[key] !== undefined) counter(m[key], `${path}.metrics.${key}`);
    if (m.reasoning_tokens !== undefined && m.output_tokens !== undefined && (m.reasoning_tokens as number) > (m.output_tokens as number)) {
      broken(`${path}.metrics.reasoning_tokens`, "is more than output_tokens");
    }
  }
  references(a.references, `${path}.references`);
  return own;
}

function action(value: unknown, path: string, commands: readonly string[]): string {
  const a = record(value, path, ["id", "label", "command", "arguments", "destructive"]);
  const own = identifier(a.id, `${path}.id`);
  label(a.label, `${path}.label`);
  const command = identifier(a.command, `${path}.command`);
  if (!commands.includes(command)) broken(`${path}.command`, `"${command}" is not a command the manifest declares`);
  if (a.arguments !== undefined) list(a.arguments, `${path}.arguments`, LIMIT.arguments).forEach((arg, i) => label(arg, `${path}.arguments[${i}]`));
  if (a.destructive !== undefined && typeof a.destructive !== "boolean") broken(`${path}.destructive`, "is not a boolean");
  return own;
}

function collection(value: unknown, path: string, actions: ReadonlySet<string>): void {
  const c = record(value, path, ["kind", "title", "nodes", "selected_node_id", "detail"]);
  if (c.kind !== "list" && c.kind !== "tree") broken(`${path}.kind`, "is neither list nor tree");
  if (c.title !== undefined) label(c.title, `${path}.title`);
  const nodes = list(c.nodes, `${path}.nodes`, LIMIT.nodes).map((item, i) => node(item, `${path}.nodes[${i}]`, c.kind as string, actions));
  const ids = distinct(nodes.map((n) => n.id), `${path}.nodes`);
  if (c.kind === "tree") tree(nodes, `${path}.nodes`);
  const selected = c.selected_node_id === undefined ? undefined : identifier(c.selected_node_id, `${path}.selected_node_id`);
  if (selected !== undefined && !ids.has(selected)) broken(`${path}.selected_node_id`, `"${selected}" names no node`);
  if (c.detail === undefined) return;
  const d = record(c.detail, `${path}.detail`, ["node_id", "title", "body", "references"]);
  if (d.node_id !== undefined) {
    const target = identifier(d.node_id, `${path}.detail.node_id`);
    if (!ids.has(target)) broken(`${path}.detail.node_id`, `"${target}" names no node`);
    if (target !== selected) broken(`${path}.detail.node_id`, "differs from selected_node_id");
  }
  if (d.title !== undefined) label(d.title, `${path}.detail.title`);
  if (d.body !== undefined) text(d.body, `${path}.detail.body`, LIMIT.bodyBytes, { blankAllowed: true, lineBreaks: true });
  references(d.references, `${path}.detail.references`);
}

interface Node {
  id: string;
  parent: string | undefined;
}

function node(value: unknown, path: string, kind: string, actions: ReadonlySet<string>): Node {
  const n = record(value, path, ["id", "parent_id", "state", "label", "secondary", "action_ids", "references"]);
  const id = identifier(n.id, `${path}.id`);
  // A null parent is a root (the protocol's own tree example writes it); a list has only roots.
  const parent = n.parent_id === undefined || n.parent_id === null ? undefined : identifier(n.parent_id, `${path}.parent_id`);
  if (parent !== undefined && kind === "list") broken(`${path}.parent_id`, "is set on a list node");
  if (n.state !== undefined) itemState(n.state, `${path}.state`);
  label(n.label, `${path}.label`);
  if (n.secondary !== undefined) label(n.secondary, `${path}.secondary`);
  if (n.action_ids !== undefined) {
    const named = list(n.action_ids, `${path}.action_ids`, LIMIT.actions).map((ref, i) => identifier(ref, `${path}.action_ids[${i}]`));
    named.forEach((ref, i) => {
      if (!actions.has(ref)) broken(`${path}.action_ids[${i}]`, `"${ref}" names no action of the snapshot`);
      if (named.indexOf(ref) !== i) broken(`${path}.action_ids[${i}]`, `"${ref}" is repeated`);
    });
  }
  references(n.references, `${path}.references`);
  return { id, parent };
}

/** Every parent exists, none is the node itself, no cycle, at most 16 levels (a root is level 1). */
function tree(nodes: readonly Node[], path: string): void {
  const parentOf = new Map(nodes.map((n) => [n.id, n.parent]));
  nodes.forEach((n, i) => {
    if (n.parent === n.id) broken(`${path}[${i}].parent_id`, "is the node itself");
    if (n.parent !== undefined && !parentOf.has(n.parent)) broken(`${path}[${i}].parent_id`, `"${n.parent}" names no node`);
  });
  nodes.forEach((n, i) => {
    let level = 1;
    for (let up = n.parent; up !== undefined; up = parentOf.get(up)) {
      if (++level > nodes.length) broken(`${path}[${i}].parent_id`, "leads into a cycle");
    }
    if (level > LIMIT.treeDepth) broken(`${path}[${i}]`, `sits at level ${level}, deeper than ${LIMIT.treeDepth}`);
  });
}

function references(value: unknown, path: string): void {
  if (value === undefined) return;
  const seen = new Set<string>();
  list(value, path, LIMIT.references).forEach((item, i) => {
    const ref = record(item, `${path}[${i}]`, ["kind", "id", "label"]);
    if (typeof ref.kind !== "string" || !REFERENCE_KINDS.has(ref.kind)) broken(`${path}[${i}].kind`, `is not one of ${[...REFERENCE_KINDS].join(", ")}`);
    const target = label(ref.id, `${path}[${i}].id`);
    if (ref.label !== undefined) label(ref.label, `${path}[${i}].label`);
    if (ref.kind === "url") {
      const problem = urlReferenceProblem(target);
      if (problem) broken(`${path}[${i}].id`, problem);
    }
    const key = JSON.stringify([ref.kind, target]);
    if (seen.has(key)) broken(`${path}[${i}]`, "repeats an earlier reference");
    seen.add(key);
  });
}

// ---- value classes ----------------------------------------------------------------

function record(value: unknown, path: string, members: readonly string[]): JsonRecord {
  if (!isObject(value)) broken(path, "is not an object");
  const unknown = Object.keys(value).find((key) => !members.includes(key));
  if (unknown !== undefined) broken(`${path}.${unknown}`, "is not a member octet knows");
  return value;
}

function list(value: unknown, path: string, max: number): unknown[] {
  if (!Array.isArray(value)) broken(path, "is not an array");
  if (value.length > max) broken(path, `has ${value.length} entries, more than ${max}`);
  return [...value];
}

/** The ids of one list: each at most once. */
function distinct(ids: readonly string[], path: string): Set<string> {
  const seen = new Set<string>();
  ids.forEach((id, i) => {
    if (seen.has(id)) broken(`${path}[${i}]`, `repeats the id "${id}"`);
    seen.add(id);
  });
  return seen;
}

/** An unsigned integer a JSON number holds exactly: 0..2^53−1. */
function counter(value: unknown, path: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) broken(path, "is not an integer in 0..2^53-1");
  return value;
}

function itemState(value: unknown, path: string): void {
  if (typeof value !== "string" || !STATES.has(value)) broken(path, `is not one of ${[...STATES].join(", ")}`);
}

function identifier(value: unknown, path: string): string {
  if (typeof value !== "string" || value.trim() === "") broken(path, "is not a non-blank string");
  if (!ID_CHARS.test(value)) broken(path, "holds a character outside A-Z a-z 0-9 _ - . : /");
  if (value.length > LIMIT.textBytes) broken(path, `is longer than ${LIMIT.textBytes} bytes`);
  return value;
}

function label(value: unknown, path: string): string {
  return text(value, path, LIMIT.textBytes, { blankAllowed: false, lineBreaks: false });
}

/**
 * Plain text octet shows: well-formed, no control character (C0, DEL, C1;
 * LF, CR and TAB only where `lineBreaks`), no bidi or zero-width formatting
 * character, at most `maxBytes` UTF-8 bytes.
 */
function text(value: unknown, path: string, maxBytes: number, rules: { blankAllowed: boolean; lineBreaks: boolean }): string {
  if (typeof value !== "string") broken(path, "is not a string");
  if (!rules.blankAllowed && value.trim() === "") broken(path, "is blank");
  if (!value.isWellFormed()) broken(path, "holds a lone surrogate");
  for (const char of value) {
    const code = char.codePointAt(0)!;
    const lineBreak = code === 0x0a || code === 0x0d || code === 0x09;
    if ((code < 0x20 || (code >= 0x7f && code < 0xa0)) && !(rules.lineBreaks && lineBreak)) {
      broken(path, `holds the control character U+${code.toString(16).toUpperCase().padStart(4, "0")}`);
    }
    if (FORMATTING.has(code)) broken(path, `holds the formatting character U+${code.toString(16).toUpperCase().padStart(4, "0")}`);
  }
  const bytes = new TextEncoder().encode(value).length;
  if (bytes > maxBytes) broken(path, `is ${bytes} UTF-8 bytes, more than ${maxBytes}`);
  return value;
}

/** Bidi controls and zero-width characters: U+061C, U+200B–U+200F, U+202A–U+202E, U+2060, U+2066–U+2069, U+FEFF. */
const FORMATTING = new Set([0x061c, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2060, 0x2066, 0x2067, 0x2068, 0x2069, 0xfeff]);
