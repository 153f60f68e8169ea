/** Protocol-1 facts both the handshake and the request encoder need (docs/native-host-protocol.md §3, §6). */

/** The commands a protocol-1 host accepts. */
export type Command = "hello" | "models" | "run" | "shutdown";

/** Frame limit until the host's `hello` says otherwise (1 MiB). */
export const DEFAULT_MAX_FRAME_BYTES = 1_048_576;
