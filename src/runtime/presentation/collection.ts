/** The snapshot's `collection`: a list or a tree of nodes with an optional detail pane (docs/protocol-0.2.md §6.7). */
import { type JsonRecord, array, fail, has, object, required } from "../../check.ts";
import { id, label, optionalLabel, scanText, state, uniqueIds } from "./fields.ts";
import { MAX_ACTIONS, MAX_BODY_BYTES, MAX_NODES, MAX_TREE_DEPTH } from "./limits.ts";
import { references } from "./references.ts";

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
function checkTree(nodes: readonly JsonRecord[], path: string): void {
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

/** Check `collection`; node `action_ids` must name entries of `actionIds`. */
export function collection(value: unknown, path: string, actionIds: ReadonlySet<string>): void {
  const c = object(value, path, ["kind", "title", "nodes", "selected_node_id", "detail"]);
  const kind = required(c, "kind", path);
  if (kind !== "list" && kind !== "tree") fail(`${path}.kind`, "must be one of list, tree");
  optionalLabel(c, "title", path);
  // nodes is required: the spec gives no default for it (unlike activities/actions).
  const list = array(required(c, "nodes", path), `${path}.nodes`, MAX_NODES);
  const nodeIds = uniqueIds(list, `${path}.nodes`, (item, p) => node(item, p, kind, actionIds));
  if (kind === "tree") checkTree(list as JsonRecord[], `${path}.nodes`);
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
      if (scanText(d.body, `${dp}.body`, [0x09, 0x0a, 0x0d], true) > MAX_BODY_BYTES) fail(`${dp}.body`, `exceeds ${MAX_BODY_BYTES} UTF-8 bytes`);
    }
    references(d, dp);
  }
}
