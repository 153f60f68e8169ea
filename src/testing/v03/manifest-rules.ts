/**
 * `[contributes]` on API 0.3 as octet takes it (docs/protocol-0.3.md §7;
 * `negotiation.rs` `negotiate_api_v03_contributions`): tools, flags, the
 * session_start/session_end hook pair (both or neither) and `providers`;
 * everything else 0.2 and 0.4 have is refused.
 */

const REFUSED = ["commands", "ui", "context", "tool_renderers", "notifications", "confirmations", "presentation", "menu", "shortcuts"];
const SESSION_HOOKS = ["session_start", "session_end"];

/** Fail (one line naming the key) on what API 0.3 refuses in `contributes`. */
export function checkContributes03(contributes: Record<string, unknown>, fail: (message: string) => never): void {
  for (const key of REFUSED) {
    const value = contributes[key];
    if (value === undefined || value === false || (Array.isArray(value) && value.length === 0)) continue;
    fail(`contributes.${key} is not available on API 0.3 (octet refuses it at negotiation); declare api_version "0.4" to use it`);
  }
  const hooks = contributes.hooks ?? [];
  if (!Array.isArray(hooks)) fail("`contributes.hooks` must be an array of strings");
  const list = hooks as unknown[];
  for (const hook of list) if (!SESSION_HOOKS.includes(hook as string)) fail(`hook \`${String(hook)}\` is not available on API 0.3 (only session_start and session_end)`);
  if (new Set(list).size !== list.length) fail("`contributes.hooks` contains duplicates");
  if (list.length === 1) fail("API 0.3 session hooks are declared as a pair: add the other of session_start, session_end");
  if (contributes.providers !== undefined && typeof contributes.providers !== "boolean") fail("contributes.providers must be a boolean");
}
