/**
 * Tool-argument checks: a tool registered with a validator (as `gen`
 * registers every tool declared in manifest.toml) has its arguments checked
 * before the handler runs. A mismatch is answered with an `is_error` result
 * that names each path and rule, so the model can correct the call.
 */

/** One way the arguments break the schema. `path` is a JSON Pointer into the arguments ("" is the whole object). */
export interface ArgumentIssue {
  path: string;
  /** The schema keyword that failed, e.g. `type`, `required`, `additionalProperties`. */
  rule: string;
  message: string;
}

/**
 * Checks a call's arguments: `null` when they are valid, otherwise the issues.
 * `octet-extension gen` writes one per declared tool (compiled at gen time).
 *
 * @example
 * const validate: ArgumentValidator = (args) =>
 *   typeof (args as { city?: unknown }).city === "string" ? null : [{ path: "/city", rule: "type", message: "must be string" }];
 */
export type ArgumentValidator = (args: unknown) => readonly ArgumentIssue[] | null;

/** At most this many issues are listed in one result (the rest are counted). */
const MAX_LISTED = 8;

/** The `is_error` text for rejected arguments. */
export function invalidArgumentsText(tool: string, issues: readonly ArgumentIssue[]): string {
  const listed = issues.slice(0, MAX_LISTED).map((i) => `${i.path === "" ? "(arguments)" : i.path} ${i.message} (rule: ${i.rule})`);
  if (issues.length > MAX_LISTED) listed.push(`and ${issues.length - MAX_LISTED} more`);
  return `invalid arguments for tool \`${tool}\`: ${listed.join("; ")}. Call it again with arguments that match its parameters schema.`;
}
