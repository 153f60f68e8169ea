/**
 * What `octet-extension call` can invoke, one entry per kind: how the kind is
 * named on the command line, how its arguments are checked before anything
 * starts, and how its answer reads. A new kind is one more entry in
 * {@link CALL_KINDS} (before `tool`, which takes any other name).
 */
import { isObject, type JsonRecord } from "octet-extension/validation";
import type { TestHost } from "octet-extension/testing";
import { CONTRIBUTION_KINDS } from "./call-contributions.ts";

/** An answer, readable: what `--quiet` prints, and the rest of it. */
export interface Answer {
  /** The result's text (empty when it has none). */
  text: string;
  /** The rest of the result, one line each (non-text parts, structured content, notifications…). */
  details: string[];
  /** Why the call failed although the extension answered (`is_error: true`). */
  failure?: string;
}

/** A checked invocation, ready to run against an initialized host. */
export type Invocation = (host: TestHost) => Promise<Answer>;

export interface CallKind {
  /** Its usage, as `call`'s usage line shows it. */
  usage: string;
  /** Whether the first argument names this kind. */
  matches(target: string): boolean;
  /** The invocation, or a one-line error for bad arguments (exit 2, nothing started). */
  prepare(target: string, rest: string[]): Invocation | { error: string };
}

const command: CallKind = {
  usage: "call /COMMAND [ARGS...]",
  matches: (target) => target.startsWith("/"),
  prepare: (target, rest) => async (host) => commandAnswer(await host.executeCommand(target.slice(1), rest)),
};

const tool: CallKind = {
  usage: "call TOOL [JSON]",
  matches: () => true,
  prepare(target, rest) {
    let args: unknown = {};
    if (rest[0] !== undefined) {
      try {
        args = JSON.parse(rest[0]);
      } catch (error) {
        return { error: `error: the arguments are not JSON (${(error as Error).message}): quote them, e.g. '{"city":"Oslo"}'` };
      }
      if (typeof args !== "object" || args === null || Array.isArray(args)) {
        return { error: `error: tool arguments must be a JSON object, not ${Array.isArray(args) ? "an array" : args === null ? "null" : typeof args}: e.g. '{"city":"Oslo"}'` };
      }
    }
    return async (host) => toolAnswer(await host.callTool(target, args));
  },
};

/** Every kind, tried in order; the first that matches the target wins. */
export const CALL_KINDS: readonly CallKind[] = [command, ...CONTRIBUTION_KINDS, tool];

/** A tool result (docs/protocol-0.2.md §3.2): text parts are the text; other parts, structured content and metadata are details. */
export function toolAnswer(result: unknown): Answer {
  const answer: Answer = { text: "", details: [] };
  if (!isObject(result)) return { ...answer, text: result === null || result === undefined ? "" : JSON.stringify(result) };
  const texts: string[] = [];
  if (typeof result.content === "string") texts.push(result.content);
  for (const part of Array.isArray(result.content) ? result.content : []) {
    if (isObject(part) && part.type === "text" && typeof part.text === "string") texts.push(part.text);
    else answer.details.push(`${isObject(part) && typeof part.type === "string" ? part.type : "part"} ${JSON.stringify(part)}`);
  }
  answer.text = texts.join("\n");
  if (result.structured_content !== undefined) answer.details.push(`structured_content ${JSON.stringify(result.structured_content)}`);
  if (isObject(result.metadata) ? Object.keys(result.metadata).length > 0 : result.metadata !== undefined) answer.details.push(`metadata ${JSON.stringify(result.metadata)}`);
  if (result.is_error === true) answer.failure = "the tool answered is_error: true";
  return answer;
}

/** A command result (docs/protocol-0.2.md §3.3): its text, then each notification and context contribution. */
export function commandAnswer(result: unknown): Answer {
  if (!isObject(result)) return { text: typeof result === "string" ? result : "", details: [] };
  const details: string[] = [];
  for (const n of Array.isArray(result.notifications) ? result.notifications : []) {
    const { level, title, message } = isObject(n) ? n : ({} as JsonRecord);
    details.push(`notification ${typeof level === "string" ? level : "info"}: ${typeof title === "string" && title ? `${title}: ` : ""}${String(message)}`);
  }
  for (const c of Array.isArray(result.context) ? result.context : []) {
    const { label, content } = isObject(c) ? c : ({} as JsonRecord);
    details.push(`context ${String(label)}: ${String(content)}`);
  }
  return { text: typeof result.text === "string" ? result.text : "", details };
}

