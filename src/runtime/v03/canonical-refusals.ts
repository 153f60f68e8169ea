/** One-line refusals for what API 0.3 (the canonical wire) does not have. */

const CALLS: Record<string, string> = {
  promptSnippet: "promptSnippet (prompt metadata)",
  promptGuidelines: "promptGuidelines (prompt metadata)",
  operation: "operation (resource descriptors)",
  hook: "this hook (0.3 has only session_start and session_end)",
};

/**
 * Why `call` (an `ext.…()` call, or a key of it) cannot be used on API 0.3,
 * naming the version and what to use instead.
 */
export function apiRefusal(call: string): string {
  const what = CALLS[call] ?? call;
  return `${what} is not available on extension API 0.3 (the canonical wire has tools, the session_start/session_end hooks, providers, migration adapters, session lifecycle and the event bus); declare api_version "0.4" to use it`;
}
