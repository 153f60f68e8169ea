/** Bounds of a presentation snapshot and its resource owner (docs/protocol-0.2.md §6.7, §7). */

/** JSON-encoded size of a whole snapshot. */
export const MAX_SNAPSHOT_BYTES = 256 * 1024;
/** UTF-8 length of a label and of an id. */
export const MAX_TEXT_BYTES = 1024;
/** UTF-8 length of a detail body. */
export const MAX_BODY_BYTES = 64 * 1024;
export const MAX_ACTIVITIES = 128;
export const MAX_NODES = 256;
/** Actions of a snapshot, and action ids of one node. */
export const MAX_ACTIONS = 64;
/** Arguments of one action. */
export const MAX_ARGUMENTS = 32;
/** References of one item. */
export const MAX_REFERENCES = 8;
/** Tree depth (a root has depth 1). */
export const MAX_TREE_DEPTH = 16;
/** UTF-8 length of `resource_owner.session_id`. */
export const MAX_SESSION_ID_BYTES = 512;
