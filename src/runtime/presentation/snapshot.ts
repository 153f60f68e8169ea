/**
 * The rules of a `presentation/update` snapshot (docs/protocol-0.2.md §4.5, §6.7, §7). Every
 * violation is a plain `Error` (an argument error, §8.11) whose message is
 * `<json path>: <rule>`, so nothing the host would treat as fatal is ever written.
 */
import { type JsonRecord, array, fail, has, object, portableInteger, required } from "../../check.ts";
import { collection } from "./collection.ts";
import { id, label, optionalLabel, state, uniqueIds } from "./fields.ts";
import { MAX_ACTIONS, MAX_ACTIVITIES, MAX_ARGUMENTS, MAX_SNAPSHOT_BYTES } from "./limits.ts";
import { references } from "./references.ts";

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
function timestamp(obj: JsonRecord, key: string, path: string): number | undefined {
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

/**
 * Check a `presentation/update` snapshot against docs/protocol-0.2.md §6.7; `declaredCommands`
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
