import { describe, expect, test } from "bun:test";
import { checkResourceOwner } from "../../src/runtime/presentation/resource-owner.ts";
import { checkSnapshot } from "../../src/runtime/presentation/snapshot.ts";

type Obj = Record<string, unknown>;

const COMMANDS = ["workers"];

/** The docs/protocol-0.2.md §6.7 example, verbatim. */
function example(): Obj {
  return JSON.parse(`{"revision":4,
 "status":{"state":"active","label":"1 worker","detail":"…"},
 "activities":[{"id":"worker:1","kind":"delegation","state":"running","summary":"Reviewing tests",
   "provenance":"local child","started_at_ms":1721000000000,"completed_at_ms":null,
   "metrics":{"tool_calls":4,"input_tokens":12000,"cache_read_tokens":800,"cache_write_tokens":0,
     "output_tokens":220,"reasoning_tokens":60,"cost_microdollars":7200},
   "references":[{"kind":"session","id":"agent-session:…","label":"…"}]}],
 "collection":{"kind":"tree","title":"Workers",
   "nodes":[{"id":"worker:1","parent_id":null,"state":"running","label":"test-review",
     "secondary":"running","action_ids":["stop"],"references":[]}],
   "selected_node_id":"worker:1",
   "detail":{"node_id":"worker:1","title":"test-review","body":"…","references":[]}},
 "actions":[{"id":"stop","label":"Stop worker","command":"workers","arguments":["stop","worker:1"],"destructive":true}]}`);
}

const activity = (i: number): Obj => ({ id: `a${i}`, kind: "k", state: "running", summary: "s" });
const node = (i: number): Obj => ({ id: `n${i}`, label: "n" });
const action = (i: number): Obj => ({ id: `x${i}`, label: "X", command: "workers" });
const times = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

function ok(snapshot: unknown): void {
  expect(() => checkSnapshot(snapshot, COMMANDS)).not.toThrow();
}

function rejected(snapshot: unknown, message: string | RegExp): void {
  expect(() => checkSnapshot(snapshot, COMMANDS)).toThrow(message);
}

/** A tree whose deepest chain has `depth` nodes (root depth 1). */
function chain(depth: number): Obj {
  const nodes = times(depth, (i) => ({ id: `n${i}`, label: "n", parent_id: i === 0 ? null : `n${i - 1}` }));
  return { revision: 1, collection: { kind: "tree", nodes } };
}

/** A valid snapshot whose compact JSON encoding is exactly `target` bytes. */
function sized(target: number): Obj {
  const big = (i: number): Obj => ({ ...activity(i), summary: "x".repeat(1024), provenance: "y".repeat(1024) });
  const snapshot: Obj & { activities: Obj[]; collection: Obj & { detail: { node_id: string; body: string } } } = {
    revision: 0,
    activities: [],
    collection: { kind: "list", nodes: [node(0)], selected_node_id: "n0", detail: { node_id: "n0", body: "" } },
  };
  const size = () => Buffer.byteLength(JSON.stringify(snapshot), "utf8");
  while (size() + 2200 < target - 1000) snapshot.activities.push(big(snapshot.activities.length));
  snapshot.collection.detail.body = "b".repeat(target - size());
  expect(size()).toBe(target);
  return snapshot;
}

describe("checkSnapshot: the §6.7 example", () => {
  test("passes with command `workers` declared", () => {
    ok(example());
  });

  test("fails when `workers` is not declared", () => {
    expect(() => checkSnapshot(example(), [])).toThrow('snapshot.actions[0].command: "workers" is not a declared command');
  });

  test("minimal snapshot with defaults passes; missing revision fails", () => {
    ok({ revision: 0 });
    rejected({}, "snapshot.revision: is required");
    rejected({ revision: 0, activities: null }, "snapshot.activities: must be an array");
  });
});

describe("checkSnapshot: bounds at the boundary", () => {
  test("128 activities ok, 129 rejected", () => {
    ok({ revision: 1, activities: times(128, activity) });
    rejected({ revision: 1, activities: times(129, activity) }, "snapshot.activities: at most 128 entries");
  });

  test("256 nodes ok, 257 rejected", () => {
    ok({ revision: 1, collection: { kind: "list", nodes: times(256, node) } });
    rejected({ revision: 1, collection: { kind: "list", nodes: times(257, node) } }, "snapshot.collection.nodes: at most 256 entries");
  });

  test("64 actions ok, 65 rejected", () => {
    ok({ revision: 1, actions: times(64, action) });
    rejected({ revision: 1, actions: times(65, action) }, "snapshot.actions: at most 64 entries");
  });

  test("32 arguments ok, 33 rejected", () => {
    ok({ revision: 1, actions: [{ ...action(0), arguments: times(32, (i) => `arg${i}`) }] });
    rejected({ revision: 1, actions: [{ ...action(0), arguments: times(33, (i) => `arg${i}`) }] }, "snapshot.actions[0].arguments: at most 32 entries");
  });

  test("8 references ok, 9 rejected; duplicates rejected", () => {
    const refs = (n: number) => times(n, (i) => ({ kind: "artifact", id: `art-${i}` }));
    ok({ revision: 1, activities: [{ ...activity(0), references: refs(8) }] });
    rejected({ revision: 1, activities: [{ ...activity(0), references: refs(9) }] }, "snapshot.activities[0].references: at most 8 entries");
    const dup = [...refs(2), { kind: "artifact", id: "art-0", label: "again" }];
    rejected({ revision: 1, collection: { kind: "list", nodes: [{ ...node(0), references: dup }] } }, "snapshot.collection.nodes[0].references[2]: duplicate reference");
  });

  test("1024-byte id ok, 1025 rejected", () => {
    ok({ revision: 1, activities: [{ ...activity(0), id: "a".repeat(1024) }] });
    rejected({ revision: 1, activities: [{ ...activity(0), id: "a".repeat(1025) }] }, "snapshot.activities[0].id: exceeds 1024");
  });

  test("1024-byte label ok (multi-byte counted in UTF-8), 1025 rejected", () => {
    ok({ revision: 1, status: { state: "active", label: "é".repeat(512) } });
    rejected({ revision: 1, status: { state: "active", label: `${"é".repeat(512)}x` } }, "snapshot.status.label: exceeds 1024 UTF-8 bytes");
  });

  test("64 KiB detail body ok, one byte more rejected", () => {
    const snap = (body: string) => ({ revision: 1, collection: { kind: "list", nodes: [node(0)], detail: { body } } });
    ok(snap("b".repeat(65536)));
    rejected(snap("b".repeat(65537)), "snapshot.collection.detail.body: exceeds 65536 UTF-8 bytes");
  });

  test("encoded 256 KiB ok, 256 KiB + 1 rejected", () => {
    ok(sized(262144));
    rejected(sized(262145), "snapshot: encoded size 262145 bytes exceeds 262144");
  });

  test("revision 2^53−1 ok, 2^53 rejected (portable), negatives and fractions rejected", () => {
    ok({ revision: 2 ** 53 - 1 });
    rejected({ revision: 2 ** 53 }, /snapshot\.revision: must be a portable integer/);
    rejected({ revision: -1 }, "snapshot.revision");
    rejected({ revision: 1.5 }, "snapshot.revision");
    rejected({ revision: "1" }, "snapshot.revision");
  });

  test("tree depth 16 ok, 17 rejected", () => {
    ok(chain(16));
    rejected(chain(17), "snapshot.collection.nodes[16]: tree depth 17 exceeds 16");
  });
});

describe("checkSnapshot: structural rules", () => {
  test("unknown keys are rejected at every level", () => {
    rejected({ revision: 1, extra: true }, "snapshot.extra: unknown key");
    rejected({ revision: 1, status: { state: "active", label: "l", color: "red" } }, "snapshot.status.color: unknown key");
    const ex = example() as { collection: { nodes: Obj[] } };
    (ex.collection.nodes[0] as Obj).icon = "x";
    rejected(ex, "snapshot.collection.nodes[0].icon: unknown key");
    const ex2 = example() as { activities: { metrics: Obj }[] };
    (ex2.activities[0] as { metrics: Obj }).metrics.wall_ms = 1;
    rejected(ex2, "snapshot.activities[0].metrics.wall_ms: unknown key");
  });

  test("state and kind enums", () => {
    rejected({ revision: 1, status: { state: "busy", label: "l" } }, "snapshot.status.state: must be one of");
    rejected({ revision: 1, collection: { kind: "grid", nodes: [] } }, "snapshot.collection.kind: must be one of list, tree");
    rejected({ revision: 1, activities: [{ ...activity(0), references: [{ kind: "file", id: "f" }] }] }, "snapshot.activities[0].references[0].kind");
  });

  test("tree cycle rejected", () => {
    const nodes = [
      { id: "a", label: "A", parent_id: "b" },
      { id: "b", label: "B", parent_id: "a" },
    ];
    rejected({ revision: 1, collection: { kind: "tree", nodes } }, "parent chain forms a cycle");
  });

  test("missing parent rejected", () => {
    const nodes = [{ id: "a", label: "A", parent_id: "ghost" }];
    rejected({ revision: 1, collection: { kind: "tree", nodes } }, 'snapshot.collection.nodes[0].parent_id: parent "ghost" does not exist');
  });

  test("self-parent rejected", () => {
    const nodes = [{ id: "a", label: "A", parent_id: "a" }];
    rejected({ revision: 1, collection: { kind: "tree", nodes } }, "snapshot.collection.nodes[0].parent_id: a node may not be its own parent");
  });

  test("list nodes may not have parent_id", () => {
    const nodes = [node(0), { ...node(1), parent_id: "n0" }];
    rejected({ revision: 1, collection: { kind: "list", nodes } }, "snapshot.collection.nodes[1].parent_id: list nodes may not have parent_id");
    ok({ revision: 1, collection: { kind: "tree", nodes } });
  });

  test("undeclared action command rejected", () => {
    rejected({ revision: 1, actions: [{ ...action(0), command: "deploy" }] }, 'snapshot.actions[0].command: "deploy" is not a declared command');
  });

  test("ids: charset, uniqueness, node action_ids", () => {
    const acts = times(4, activity);
    (acts[3] as Obj).id = "worker 3";
    rejected({ revision: 1, activities: acts }, "snapshot.activities[3].id: characters outside A-Z a-z 0-9 _ - . : /");
    rejected({ revision: 1, actions: [action(0), action(0)] }, 'snapshot.actions[1]: duplicate id "x0"');
    const withIds = (ids: string[]) => ({ revision: 1, actions: [action(0)], collection: { kind: "list", nodes: [{ ...node(0), action_ids: ids }] } });
    ok(withIds(["x0"]));
    rejected(withIds(["x9"]), 'snapshot.collection.nodes[0].action_ids[0]: "x9" is not a declared action');
    rejected(withIds(["x0", "x0"]), 'snapshot.collection.nodes[0].action_ids[1]: repeated action id "x0"');
  });

  test("selected_node_id and detail.node_id", () => {
    const c = (extra: Obj) => ({ revision: 1, collection: { kind: "list", nodes: [node(0), node(1)], ...extra } });
    ok(c({ selected_node_id: "n1", detail: { node_id: "n1" } }));
    rejected(c({ selected_node_id: "n7" }), 'snapshot.collection.selected_node_id: "n7" does not name a node');
    rejected(c({ selected_node_id: "n0", detail: { node_id: "n1" } }), "snapshot.collection.detail.node_id: must equal selected_node_id");
    rejected(c({ detail: { node_id: "n0" } }), "snapshot.collection.detail.node_id: must equal selected_node_id");
  });

  test("metrics and timestamps", () => {
    const a = (extra: Obj) => ({ revision: 1, activities: [{ ...activity(0), ...extra }] });
    ok(a({ metrics: { output_tokens: 10, reasoning_tokens: 10 }, started_at_ms: 5, completed_at_ms: 5 }));
    rejected(a({ metrics: { output_tokens: 10, reasoning_tokens: 11 } }), "snapshot.activities[0].metrics.reasoning_tokens: must not exceed output_tokens");
    rejected(a({ started_at_ms: 6, completed_at_ms: 5 }), "snapshot.activities[0].completed_at_ms: must not be before started_at_ms");
    rejected(a({ metrics: { tool_calls: 2 ** 53 } }), "snapshot.activities[0].metrics.tool_calls");
    rejected(a({ started_at_ms: -1 }), "snapshot.activities[0].started_at_ms");
  });
});

describe("checkSnapshot: url references", () => {
  const withUrl = (url: string) => ({ revision: 1, activities: [{ ...activity(0), references: [{ kind: "url", id: url }] }] });

  test("https://example.com/x passes", () => {
    ok(withUrl("https://example.com/x"));
    ok(withUrl("http://93.184.216.34/"));
    ok(withUrl("https://[2606:4700::1111]/"));
    ok(withUrl("https://[::ffff:8.8.8.8]/"));
  });

  for (const bad of [
    "http://localhost/",
    "http://10.0.0.1/",
    "http://[::1]/",
    "https://user:pw@example.com/",
    "ftp://example.com/",
    "http://app.localhost/",
    "http://printer.local/",
    "http://192.168.1.1/",
    "http://169.254.169.254/",
    "http://0.0.0.0/",
    "http://224.0.0.1/",
    "http://[fe80::1]/",
    "http://[fd00::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[ff02::1]/",
    "/relative/path",
    "http:example.com",
  ]) {
    test(`${bad} rejected`, () => {
      rejected(withUrl(bad), /^snapshot\.activities\[0\]\.references\[0\]\.id: (URL must|must be an absolute)/);
    });
  }
});

describe("checkSnapshot: text rules", () => {
  test("label with U+202E rejected", () => {
    rejected({ revision: 1, status: { state: "active", label: "abc\u202Edef" } }, "snapshot.status.label: contains a bidi/zero-width formatting character (U+202E)");
  });

  test("control characters, ESC, blank labels rejected; body allows LF/CR/TAB only", () => {
    rejected({ revision: 1, actions: [{ ...action(0), label: "a\u001b[31m" }] }, "snapshot.actions[0].label: contains ESC");
    rejected({ revision: 1, actions: [{ ...action(0), label: "a\u0085" }] }, "snapshot.actions[0].label: contains a control character (U+0085)");
    rejected({ revision: 1, actions: [{ ...action(0), label: "a\nb" }] }, "snapshot.actions[0].label: contains a control character (U+000A)");
    rejected({ revision: 1, actions: [{ ...action(0), label: "  " }] }, "snapshot.actions[0].label: must not be blank");
    const body = (text: string) => ({ revision: 1, collection: { kind: "list", nodes: [node(0)], detail: { body: text } } });
    ok(body("line 1\r\n\tline 2"));
    rejected(body("bell\u0007"), "snapshot.collection.detail.body: contains a control character (U+0007)");
    rejected(body("x\uFEFF"), "snapshot.collection.detail.body: contains a bidi/zero-width formatting character (U+FEFF)");
  });
});

describe("checkResourceOwner", () => {
  const owner = { session_id: "sess-1", extension_instance_id: "0123456789abcdef0123456789abcdef", process_generation: 1 };

  test("a complete triple passes and is returned exactly", () => {
    expect(checkResourceOwner({ ...owner })).toEqual(owner);
  });

  test("owner with a missing key rejected", () => {
    const { extension_instance_id: _, ...partial } = owner;
    expect(() => checkResourceOwner(partial)).toThrow("resource_owner.extension_instance_id: is required");
  });

  test("extra key, blank strings, bad generation and long session id rejected", () => {
    expect(() => checkResourceOwner({ ...owner, extra: 1 })).toThrow("resource_owner.extra: unknown key");
    expect(() => checkResourceOwner({ ...owner, session_id: " " })).toThrow("resource_owner.session_id");
    expect(() => checkResourceOwner({ ...owner, extension_instance_id: "" })).toThrow("resource_owner.extension_instance_id");
    expect(() => checkResourceOwner({ ...owner, process_generation: 0 })).toThrow("resource_owner.process_generation");
    expect(() => checkResourceOwner({ ...owner, process_generation: 2 ** 53 })).toThrow("resource_owner.process_generation");
    expect(() => checkResourceOwner({ ...owner, session_id: "s\u0000" })).toThrow("resource_owner.session_id: contains a control character");
    expect(checkResourceOwner({ ...owner, session_id: "s".repeat(512) }).session_id).toHaveLength(512);
    expect(() => checkResourceOwner({ ...owner, session_id: "s".repeat(513) })).toThrow("resource_owner.session_id: exceeds 512");
    expect(() => checkResourceOwner(null)).toThrow("resource_owner: must be an object");
  });
});
