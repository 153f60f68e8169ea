/**
 * The test host judges with its own checkers (issue 26): presentation
 * snapshots and menus are read by `src/testing/snapshot-rules.ts` and
 * `src/testing/menu-rules.ts`, written from the protocol, never by the
 * runtime's `checkSnapshot` / `menuResult`, so a runtime bug cannot pass its
 * own check. The raw extension (no runtime) writes what the runtime would
 * never produce.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { HostViolation } from "octet-extension/testing";
import { emit, expectFatal, rejection, startRaw } from "../fixtures/testing/raw.ts";
import { snapshotViolation } from "../../src/testing/snapshot-rules.ts";
import { menuViolation } from "../../src/testing/menu-rules.ts";

type Obj = Record<string, unknown>;
const TESTING = join(import.meta.dir, "../../src/testing");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => join(entry.parentPath, entry.name));
}

test("src/testing takes only types from src/runtime: no runtime check decides a verdict", () => {
  const valueImports: string[] = [];
  for (const file of sources(TESTING)) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/^(import|export)\s+(type\s+)?\{([^}]*)\}\s+from\s+"((?:\.\.\/)+runtime\/[^"]+)"/gm)) {
      const [, , typeOnly, names, from] = match;
      const values = typeOnly ? [] : names!.split(",").map((n) => n.trim()).filter((n) => n && !n.startsWith("type "));
      if (values.length) valueImports.push(`${relative(TESTING, file)}: ${values.join(", ")} from ${from}`);
    }
  }
  expect(valueImports).toEqual([]);
});

/** The example snapshot of docs/protocol-0.2.md §6.7. */
const EXAMPLE = (): Obj => ({
  revision: 4,
  status: { state: "active", label: "1 worker", detail: "…" },
  activities: [
    {
      id: "worker:1", kind: "delegation", state: "running", summary: "Reviewing tests", provenance: "local child", started_at_ms: 1721000000000, completed_at_ms: null,
      metrics: { tool_calls: 4, input_tokens: 12000, cache_read_tokens: 800, cache_write_tokens: 0, output_tokens: 220, reasoning_tokens: 60, cost_microdollars: 7200 },
      references: [{ kind: "session", id: "agent-session:1", label: "child" }],
    },
  ],
  collection: {
    kind: "tree", title: "Workers",
    nodes: [{ id: "worker:1", parent_id: null, state: "running", label: "test-review", secondary: "running", action_ids: ["stop"], references: [] }],
    selected_node_id: "worker:1",
    detail: { node_id: "worker:1", title: "test-review", body: "line 1\nline 2", references: [] },
  },
  actions: [{ id: "stop", label: "Stop worker", command: "workers", arguments: ["stop", "worker:1"], destructive: true }],
});

/** `EXAMPLE` with `change` applied to a copy. */
function changed(change: (s: any) => void): Obj {
  const snapshot = EXAMPLE();
  change(snapshot);
  return snapshot;
}

const SNAPSHOT_CASES: [title: string, snapshot: unknown, violation: string][] = [
  ["no revision", changed((s) => delete s.revision), "snapshot.revision: is not an integer in 0..2^53-1"],
  ["revision 2^53", changed((s) => (s.revision = 2 ** 53)), "snapshot.revision: is not an integer in 0..2^53-1"],
  ["an unknown top-level member", changed((s) => (s.theme = "dark")), "snapshot.theme: is not a member octet knows"],
  ["an unknown state", changed((s) => (s.status.state = "busy")), "snapshot.status.state: is not one of empty, loading, pending, active, running, succeeded, failed, cancelled, degraded, stopped, unavailable"],
  ["an ESC in a label", changed((s) => (s.status.label = "\u001b[31mred")), "snapshot.status.label: holds the control character U+001B"],
  ["a bidi override in a summary", changed((s) => (s.activities[0].summary = "abc\u202Edef")), "snapshot.activities[0].summary: holds the formatting character U+202E"],
  ["a blank label", changed((s) => (s.actions[0].label = "  ")), "snapshot.actions[0].label: is blank"],
  ["a space in an id", changed((s) => (s.activities[0].id = "worker 1")), "snapshot.activities[0].id: holds a character outside A-Z a-z 0-9 _ - . : /"],
  ["reasoning above output tokens", changed((s) => (s.activities[0].metrics.reasoning_tokens = 221)), "snapshot.activities[0].metrics.reasoning_tokens: is more than output_tokens"],
  ["completed before started", changed((s) => (s.activities[0].completed_at_ms = 1)), "snapshot.activities[0].completed_at_ms: is before started_at_ms"],
  ["an undeclared action command", changed((s) => (s.actions[0].command = "deploy")), 'snapshot.actions[0].command: "deploy" is not a command the manifest declares'],
  ["a node naming an unknown action", changed((s) => (s.collection.nodes[0].action_ids = ["start"])), 'snapshot.collection.nodes[0].action_ids[0]: "start" names no action of the snapshot'],
  ["a parent on a list node", changed((s) => Object.assign(s.collection, { kind: "list", nodes: [{ id: "a", label: "A" }, { id: "b", label: "B", parent_id: "a" }], selected_node_id: "a", detail: { node_id: "a" } })), "snapshot.collection.nodes[1].parent_id: is set on a list node"],
  ["a cycle", changed((s) => Object.assign(s.collection, { nodes: [{ id: "a", label: "A", parent_id: "b" }, { id: "b", label: "B", parent_id: "a" }], selected_node_id: "a", detail: { node_id: "a" } })), "snapshot.collection.nodes[0].parent_id: leads into a cycle"],
  ["a 17-level tree", changed((s) => Object.assign(s.collection, { nodes: Array.from({ length: 17 }, (_, i) => ({ id: `n${i}`, label: "n", parent_id: i ? `n${i - 1}` : null })), selected_node_id: "n0", detail: { node_id: "n0" } })), "snapshot.collection.nodes[16]: sits at level 17, deeper than 16"],
  ["detail on another node than the selected one", changed((s) => Object.assign(s.collection, { nodes: [{ id: "a", label: "A" }, { id: "b", label: "B" }], selected_node_id: "a", detail: { node_id: "b" } })), "snapshot.collection.detail.node_id: differs from selected_node_id"],
  ["a localhost url reference", changed((s) => (s.activities[0].references = [{ kind: "url", id: "http://localhost:8080/x" }])), "snapshot.activities[0].references[0].id: targets the local name localhost"],
  ["a private address url reference", changed((s) => (s.activities[0].references = [{ kind: "url", id: "https://[::ffff:192.168.0.1]/" }])), "snapshot.activities[0].references[0].id: targets the non-public address [::ffff:c0a8:1]"],
  ["a url reference with credentials", changed((s) => (s.activities[0].references = [{ kind: "url", id: "https://user:pw@example.com/" }])), "snapshot.activities[0].references[0].id: carries credentials"],
  ["a repeated reference", changed((s) => (s.activities[0].references = [{ kind: "artifact", id: "a" }, { kind: "artifact", id: "a", label: "again" }])), "snapshot.activities[0].references[1]: repeats an earlier reference"],
  ["129 activities", changed((s) => (s.activities = Array.from({ length: 129 }, (_, i) => ({ id: `a${i}`, kind: "k", state: "running", summary: "s" })))), "snapshot.activities: has 129 entries, more than 128"],
  ["a body over 64 KiB", changed((s) => (s.collection.detail.body = "b".repeat(65537))), "snapshot.collection.detail.body: is 65537 UTF-8 bytes, more than 65536"],
];

describe("snapshot-rules: the host's reading of docs/protocol-0.2.md §6.7", () => {
  test("the protocol's example passes; a public url reference passes", () => {
    expect(snapshotViolation(EXAMPLE(), ["workers"])).toBeUndefined();
    expect(snapshotViolation(changed((s) => (s.activities[0].references = [{ kind: "url", id: "https://example.com/run/1" }])), ["workers"])).toBeUndefined();
    expect(snapshotViolation({ revision: 0 }, [])).toBeUndefined();
  });
  for (const [title, snapshot, violation] of SNAPSHOT_CASES) {
    test(title, () => expect(snapshotViolation(snapshot, ["workers"])).toBe(violation));
  }
});

describe("test host: a snapshot the runtime would never write is fatal (raw frames)", () => {
  for (const [title, snapshot, violation] of SNAPSHOT_CASES.slice(0, 12)) {
    test(title, async () => {
      const host = await startRaw({ api: "0.2", contributes: ['commands = ["workers"]', "presentation = true"] });
      const line = JSON.stringify({ jsonrpc: "2.0", method: "presentation/update", params: { parent_request_id: 0, snapshot } }).replace('"parent_request_id":0', '"parent_request_id":$ID');
      await expectFatal(host, emit(host, [line]), `invalid presentation snapshot: ${violation}`);
    });
  }

  test("a good snapshot passes (control)", async () => {
    const host = await startRaw({ api: "0.2", contributes: ['commands = ["workers"]', "presentation = true"] });
    const line = JSON.stringify({ jsonrpc: "2.0", method: "presentation/update", params: { parent_request_id: 0, snapshot: EXAMPLE() } }).replace('"parent_request_id":0', '"parent_request_id":$ID');
    await emit(host, [line]);
    expect(host.violations).toEqual([]);
    expect(host.notifications("presentation/update").length).toBe(1);
    expect(await host.shutdown()).toBe(0);
  });
});

const MENU = (): Obj => ({
  title: "Deploys",
  status: { state: "active", label: "ready" },
  items: [
    { id: "staging", label: "Deploy staging", command: "deploy", arguments: ["staging"], recommended: true },
    { id: "more", label: "More", items: [{ id: "prod", label: "Deploy prod", command: "deploy", arguments: ["prod"], destructive: true }] },
  ],
});

const menuWith = (change: (m: any) => void): Obj => {
  const menu = MENU();
  change(menu);
  return menu;
};

const nest = (depth: number): Obj => (depth === 1 ? { id: "leaf", label: "Leaf", command: "deploy" } : { id: `l${depth}`, label: "Level", items: [nest(depth - 1)] });

const MENU_CASES: [title: string, menu: unknown, violation: string][] = [
  ["no items", { title: "x" }, "the reply is not an object with an items array"],
  ["an undeclared command", menuWith((m) => (m.items[0].command = "launch")), 'menu item "staging" runs "launch", not a command the manifest declares'],
  ["two recommended items", menuWith((m) => m.items.push({ id: "x", label: "X", command: "deploy", recommended: true })), 'menu item "x" is a second recommended item on its level'],
  ["a repeated id", menuWith((m) => m.items.push({ id: "staging", label: "Again", command: "deploy" })), 'menu item "staging" repeats an id of its level'],
  ["both command and items", menuWith((m) => (m.items[0].items = [])), 'menu item "staging" needs exactly one of command and items'],
  ["five levels", { items: [nest(5)] }, "the menu has more than 4 levels"],
  ["257 items", { items: Array.from({ length: 257 }, (_, i) => ({ id: `i${i}`, label: "I", command: "deploy" })) }, "the menu has more than 256 items"],
  ["an unknown state", menuWith((m) => (m.status.state = "busy")), "the menu status state is not one of empty, loading, pending, active, running, succeeded, failed, cancelled, degraded, stopped, unavailable"],
  ["an unknown member", menuWith((m) => (m.items[0].icon = "rocket")), 'a menu item has the member "icon", which octet does not know'],
  ["33 arguments", menuWith((m) => (m.items[0].arguments = Array.from({ length: 33 }, () => "a"))), 'the arguments of menu item "staging" are not an array of at most 32'],
  ["arguments on a submenu", menuWith((m) => (m.items[1].arguments = ["x"])), 'submenu menu item "more" carries arguments or destructive'],
  ["a 257-byte label", menuWith((m) => (m.items[0].label = "l".repeat(257))), 'the label of menu item "staging" is 257 bytes, more than 256'],
];

describe("menu-rules: the host's reading of docs/protocol-0.2.md §6.9", () => {
  test("a good menu passes", () => expect(menuViolation(MENU(), ["deploy"])).toBeUndefined());
  for (const [title, menu, violation] of MENU_CASES) test(title, () => expect(menuViolation(menu, ["deploy"])).toBe(violation));
});

describe("test host: collectMenu rejects a menu the runtime would never send (raw frames)", () => {
  const start = () => startRaw({ api: "0.2", contributes: ['commands = ["deploy"]', "menu = true"] });
  for (const [title, menu, violation] of MENU_CASES) {
    test(title, async () => {
      const host = await start();
      await emit(host, [], { menu });
      const error = await rejection(host.collectMenu());
      expect(error).toBeInstanceOf(HostViolation);
      expect(error.message).toBe(`octet would reject this menu: ${violation}`);
    });
  }

  test("a good menu is returned as sent (control)", async () => {
    const host = await start();
    await emit(host, [], { menu: MENU() });
    expect(await host.collectMenu()).toEqual(MENU() as never);
    expect(await host.shutdown()).toBe(0);
  });
});
