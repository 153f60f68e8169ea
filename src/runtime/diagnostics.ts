/**
 * Typed diagnostics (`metadata.octet_diagnostics_v1` in a tool result;
 * docs/api-0.4.md "Typed diagnostics"). Not a negotiated feature: octet
 * 0.8.x validates the list whenever it is present and rejects the whole
 * result if one rule is broken. A result with diagnostics also carries a text
 * part summarising the first eight, for the model and for hosts that ignore
 * the metadata.
 */
import { isObject } from "../check.ts";

/** Where a diagnostic points: a half-open byte span in a workspace file (at a revision), a blob or an artifact. */
export interface DiagnosticLocation {
  source: { kind: "workspace"; path: string; revision: string } | { kind: "blob"; id: string } | { kind: "artifact"; id: string };
  span: { start_byte: number; end_byte: number };
}

/** One finding of a tool, as octet shows it. */
export interface Diagnostic {
  severity: "error" | "warning" | "info" | "hint";
  /** `^[A-Za-z][A-Za-z0-9_.-]{0,127}$`, e.g. `solver.nonconvergent`. */
  code: string;
  /** 1–4096 bytes; tab and newline are the only controls allowed. */
  message: string;
  primary?: DiagnosticLocation;
  related?: { message: string; location: DiagnosticLocation }[];
  /** Suggested edits (never applied by octet); only to workspace files. */
  fixes?: { title: string; edits: { location: DiagnosticLocation; replacement: string }[] }[];
  attachments?: { kind: "blob" | "artifact"; id: string; label?: string }[];
}

/** The reserved metadata key. */
export const DIAGNOSTICS_KEY = "octet_diagnostics_v1";

const SEVERITIES = ["error", "warning", "info", "hint"];
const CODE = /^[A-Za-z][A-Za-z0-9_.-]{0,127}$/;
const OPAQUE_ID = /^[!-~]{1,128}$/;
const REVISION = /^[0-9a-f]{64}$/;
/** C0 but tab and newline, DEL and C1. */
const DISPLAY_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const MAX_DIAGNOSTICS = 32;
const MAX_LIST_BYTES = 64 * 1024;
const MAX_TEXT_BYTES = 4096;
const MAX_REPLACEMENT_BYTES = 16 * 1024;
const MAX_PATH_BYTES = 4096;
const MAX_RELATED = 16;
const MAX_FIXES = 8;
const MAX_EDITS = 16;
const MAX_ATTACHMENTS = 16;
const SUMMARY_DIAGNOSTICS = 8;
const SUMMARY_BYTES = 4096;

const bytes = (text: string) => Buffer.byteLength(text);

/**
 * Why `value` is not a valid `octet_diagnostics_v1` list, or undefined when it
 * is. `blobs: false` also refuses blob sources and attachments (octet admits
 * them only with `bulk_objects_v1` negotiated).
 */
export function diagnosticsProblem(value: unknown, options: { blobs?: boolean } = {}): string | undefined {
  if (!Array.isArray(value)) return "diagnostics must be an array";
  if (value.length > MAX_DIAGNOSTICS) return `at most ${MAX_DIAGNOSTICS} diagnostics are allowed`;
  for (const [index, diagnostic] of value.entries()) {
    const problem = diagnosticProblem(diagnostic) ?? (options.blobs === false && /"kind":"blob"/.test(JSON.stringify(diagnostic)) ? "blob sources and attachments need negotiated bulk_objects_v1" : undefined);
    if (problem) return `diagnostic ${index}: ${problem}`;
  }
  if (bytes(JSON.stringify(value)) > MAX_LIST_BYTES) return `the diagnostics list exceeds ${MAX_LIST_BYTES} bytes`;
  return undefined;
}

/** Throw a `TypeError` naming the first broken rule. */
export function validateDiagnostics(value: unknown): asserts value is Diagnostic[] {
  const problem = diagnosticsProblem(value);
  if (problem) throw new TypeError(`invalid ${DIAGNOSTICS_KEY}: ${problem}`);
}

/**
 * The text octet's SDKs add for diagnostics: `severity[code]: message` per
 * diagnostic (tabs and newlines in the message become spaces), the first
 * eight, one per line, cut to 4096 bytes on a character boundary.
 */
export function diagnosticSummary(diagnostics: readonly Diagnostic[]): string {
  const text = diagnostics
    .slice(0, SUMMARY_DIAGNOSTICS)
    .map((d) => `${d.severity}[${d.code}]: ${d.message.replace(/[\n\t]/g, " ")}`)
    .join("\n");
  if (bytes(text) <= SUMMARY_BYTES) return text;
  let out = "";
  let used = 0;
  for (const character of text) {
    used += bytes(character);
    if (used > SUMMARY_BYTES) break;
    out += character;
  }
  return out;
}

function diagnosticProblem(d: unknown): string | undefined {
  if (!isObject(d)) return "must be an object";
  const extra = Object.keys(d).find((k) => !["severity", "code", "message", "primary", "related", "fixes", "attachments"].includes(k));
  if (extra) return `unknown key ${JSON.stringify(extra)}`;
  for (const key of ["primary", "related", "fixes", "attachments"]) if (key in d && (d[key] === null || d[key] === undefined)) return `${key} must be omitted, not null`;
  if (!SEVERITIES.includes(d.severity as string)) return `severity must be one of ${SEVERITIES.join(", ")}`;
  if (typeof d.code !== "string" || !CODE.test(d.code)) return "code must match ^[A-Za-z][A-Za-z0-9_.-]{0,127}$";
  const message = displayText(d.message, "message", MAX_TEXT_BYTES, false);
  if (message) return message;
  if ("primary" in d) {
    const primary = locationProblem(d.primary);
    if (primary) return `primary: ${primary}`;
  }
  if ("related" in d) {
    if (!Array.isArray(d.related) || d.related.length > MAX_RELATED) return `related must be an array of at most ${MAX_RELATED}`;
    for (const related of d.related) {
      if (!isObject(related) || Object.keys(related).some((k) => k !== "message" && k !== "location")) return "related entries are {message, location}";
      const problem = displayText(related.message, "related message", MAX_TEXT_BYTES, false) ?? locationProblem(related.location);
      if (problem) return `related: ${problem}`;
    }
  }
  if ("fixes" in d) {
    if (!Array.isArray(d.fixes) || d.fixes.length > MAX_FIXES) return `fixes must be an array of at most ${MAX_FIXES}`;
    for (const fix of d.fixes) {
      if (!isObject(fix) || Object.keys(fix).some((k) => k !== "title" && k !== "edits")) return "fixes are {title, edits}";
      const title = displayText(fix.title, "fix title", MAX_TEXT_BYTES, false);
      if (title) return title;
      if (!Array.isArray(fix.edits) || fix.edits.length < 1 || fix.edits.length > MAX_EDITS) return `a fix needs 1 to ${MAX_EDITS} edits`;
      for (const edit of fix.edits) {
        if (!isObject(edit) || Object.keys(edit).some((k) => k !== "location" && k !== "replacement")) return "edits are {location, replacement}";
        const problem = locationProblem(edit.location) ?? displayText(edit.replacement, "replacement", MAX_REPLACEMENT_BYTES, true);
        if (problem) return `fix edit: ${problem}`;
        if ((edit.location as DiagnosticLocation).source.kind !== "workspace") return "a fix may only edit workspace files";
      }
    }
  }
  if ("attachments" in d) {
    if (!Array.isArray(d.attachments) || d.attachments.length > MAX_ATTACHMENTS) return `attachments must be an array of at most ${MAX_ATTACHMENTS}`;
    for (const attachment of d.attachments) {
      if (!isObject(attachment) || Object.keys(attachment).some((k) => !["kind", "id", "label"].includes(k))) return "attachments are {kind, id, label?}";
      if (attachment.kind !== "blob" && attachment.kind !== "artifact") return 'attachment kind must be "blob" or "artifact"';
      if (typeof attachment.id !== "string" || !OPAQUE_ID.test(attachment.id)) return "attachment id must be 1-128 printable ASCII characters without spaces";
      if ("label" in attachment) {
        const label = displayText(attachment.label, "attachment label", MAX_TEXT_BYTES, false);
        if (label) return label;
      }
    }
  }
  return undefined;
}

function locationProblem(location: unknown): string | undefined {
  if (!isObject(location) || Object.keys(location).some((k) => k !== "source" && k !== "span")) return "a location is {source, span}";
  const { source, span } = location;
  if (!isObject(source)) return "source must be an object";
  if (source.kind === "workspace") {
    if (Object.keys(source).some((k) => !["kind", "path", "revision"].includes(k))) return "a workspace source is {kind, path, revision}";
    const path = workspacePathProblem(source.path);
    if (path) return path;
    if (typeof source.revision !== "string" || !REVISION.test(source.revision)) return "revision must be the file's SHA-256 as 64 lowercase hex digits";
  } else if (source.kind === "blob" || source.kind === "artifact") {
    if (Object.keys(source).some((k) => k !== "kind" && k !== "id")) return `a ${source.kind} source is {kind, id}`;
    if (typeof source.id !== "string" || !OPAQUE_ID.test(source.id)) return "source id must be 1-128 printable ASCII characters without spaces";
  } else return 'source kind must be "workspace", "blob" or "artifact"';
  if (!isObject(span) || Object.keys(span).some((k) => k !== "start_byte" && k !== "end_byte")) return "span is {start_byte, end_byte}";
  const { start_byte: start, end_byte: end } = span;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || (start as number) < 0 || (end as number) < 0) return "span offsets must be non-negative safe integers";
  if ((start as number) > (end as number)) return "span start_byte must not exceed end_byte";
  return undefined;
}

function workspacePathProblem(path: unknown): string | undefined {
  if (typeof path !== "string" || path === "" || bytes(path) > MAX_PATH_BYTES) return `path must be 1-${MAX_PATH_BYTES} bytes`;
  if (/[\x00-\x1f\x7f-\x9f\\:]/.test(path)) return "path must be relative to the workspace with '/' separators (no controls, '\\' or ':')";
  if (path.split("/").some((part) => part === "" || part === "." || part === "..")) return "path must be normalised (no empty, '.' or '..' components)";
  return undefined;
}

function displayText(value: unknown, what: string, max: number, allowEmpty: boolean): string | undefined {
  if (typeof value !== "string" || (!allowEmpty && value === "")) return `${what} must be a${allowEmpty ? "" : " non-empty"} string`;
  if (DISPLAY_CONTROL.test(value)) return `${what} may contain no control characters but tab and newline`;
  if (LONE_SURROGATE.test(value)) return `${what} contains a lone surrogate`;
  if (bytes(value) > max) return `${what} exceeds ${max} bytes`;
  return undefined;
}
