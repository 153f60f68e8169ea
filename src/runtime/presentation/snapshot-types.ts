/** The `presentation/update` snapshot (API 0.2, docs/protocol-0.2.md §6.7) and the `resource_owner` triple (§6.2). */

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

/** Every {@link PresentationState}, in the order messages list them. */
export const PRESENTATION_STATES: readonly string[] = [
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

/** A complete `presentation/update` snapshot (docs/protocol-0.2.md §6.7). */
export interface PresentationSnapshot {
  /** Integer 0..2^53−1, strictly increasing within a process generation. */
  revision: number;
  status?: PresentationStatus;
  activities?: PresentationActivity[];
  collection?: PresentationCollection;
  actions?: PresentationAction[];
}

/** The `resource_owner` triple of docs/protocol-0.2.md §6.2. */
export interface ResourceOwnerTriple {
  session_id: string;
  extension_instance_id: string;
  process_generation: number;
}
