/**
 * Typed requests of protocol 1 and their outbound checks
 * (docs/native-host-protocol.md §5, §6, §10, §11, §15 "Outbound"). {@link encodeRequest} refuses, before
 * anything is written, a request the host would reject as malformed: unknown
 * fields, `null` where the host wants a boolean/array/map, bad ids, values over
 * the documented bounds, fields gated by a `hello` feature the host did not
 * offer, and lines over the frame limit (measured in UTF-8 bytes with the LF).
 */
import { InvalidRequest } from "./errors.ts";
import { checkId, checkModelId, checkSessionId, hasControl } from "./ids.ts";
import type { HelloInfo } from "./hello.ts";

export { type Command, DEFAULT_MAX_FRAME_BYTES } from "./commands.ts";
import { type Command, DEFAULT_MAX_FRAME_BYTES } from "./commands.ts";

export type ProviderMode = "openai-compatible" | "openai-responses" | "anthropic-messages";
export type MediaItem = { type: "image" | "audio"; path: string };
export type HistoryItem = { role: "user" | "assistant"; text: string };

/** Every field of a `run` request (docs/native-host-protocol.md §6.3). Omit a field to get the host's default. */
export interface RunParams {
  /** Default: `run-<n>`, unique per client. */
  run_id?: string;
  session_id?: string;
  /** Absolute path of an existing directory. */
  workspace: string;
  working_dir?: string;
  session_dir?: string;
  resume_session?: string;
  model: string;
  provider?: string;
  base_url?: string;
  api_key?: string;
  custom_headers?: Record<string, string>;
  provider_mode?: ProviderMode;
  context_window_tokens?: number;
  max_output_tokens?: number;
  vision?: boolean;
  input_modalities?: ("image" | "audio")[];
  supports_reasoning?: boolean;
  prompt: string;
  /** Sent only when the host offers `features.prompt_display_text`; otherwise the run is refused locally. */
  prompt_display_text?: string;
  system_prompt?: string;
  reasoning?: string;
  /** `[]` means no tools; omit for the host's default surface. */
  tools?: string[];
  /** Host default is true; send it explicitly. */
  allow_file_mutation?: boolean;
  allow_external_paths?: boolean;
  context_files?: boolean;
  offline?: boolean;
  max_turns?: number;
  max_cost_microdollars?: number;
  history?: HistoryItem[];
  media?: MediaItem[];
  image_paths?: string[];
  prompt_paths?: string[];
  skill_paths?: string[];
  extension_paths?: string[];
  enabled_extensions?: string[];
  trusted_extensions?: string[];
}

/** @deprecated Renamed {@link RunParams} (`RunOptions` is the extension runtime's stdio overrides). */
export type RunOptions = RunParams;

export const KiB = 1024;

type Kind = "string" | "path" | "bool" | "uint" | "strings" | "paths" | "map" | "history" | "media" | "modalities";

/** The run fields the host accepts and their JSON kinds; any other key is refused. */
const RUN_FIELDS: Record<keyof RunParams, Kind> = {
  run_id: "string",
  session_id: "string",
  workspace: "path",
  working_dir: "path",
  session_dir: "string",
  resume_session: "path",
  model: "string",
  provider: "string",
  base_url: "string",
  api_key: "string",
  custom_headers: "map",
  provider_mode: "string",
  context_window_tokens: "uint",
  max_output_tokens: "uint",
  vision: "bool",
  input_modalities: "modalities",
  supports_reasoning: "bool",
  prompt: "string",
  prompt_display_text: "string",
  system_prompt: "string",
  reasoning: "string",
  tools: "strings",
  allow_file_mutation: "bool",
  allow_external_paths: "bool",
  context_files: "bool",
  offline: "bool",
  max_turns: "uint",
  max_cost_microdollars: "uint",
  history: "history",
  media: "media",
  image_paths: "paths",
  prompt_paths: "paths",
  skill_paths: "paths",
  extension_paths: "paths",
  enabled_extensions: "strings",
  trusted_extensions: "strings",
};

/** Header names the host refuses (hop-by-hop and routing headers, docs/native-host-protocol.md §11). */
const FORBIDDEN_HEADERS = new Set([
  "connection", "content-length", "host", "keep-alive", "proxy-authenticate", "proxy-authorization",
  "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const IMAGE_EXT = /\.(png|jpe?g|gif|webp)$/i;
const AUDIO_EXT = /\.(wav|mp3|flac|opus|ogg|aac|m4a|pcm|pcm16)$/i;

/** Why `value` does not have JSON kind `kind`, or undefined. */
function kindError(name: string, kind: Kind, value: unknown): string | undefined {
  const isStrings = Array.isArray(value) && value.every((v) => typeof v === "string");
  switch (kind) {
    case "string":
      return typeof value === "string" ? undefined : `${name} must be a string`;
    case "path":
      if (typeof value !== "string") return `${name} must be a string`;
      return value.startsWith("/") ? undefined : `${name} must be an absolute path (relative paths resolve against the host's cwd)`;
    case "bool":
      return typeof value === "boolean" ? undefined : `${name} must be a boolean`;
    case "uint":
      return Number.isSafeInteger(value) && (value as number) >= 0 ? undefined : `${name} must be an unsigned integer`;
    case "strings":
      return isStrings ? undefined : `${name} must be an array of strings`;
    case "paths":
      if (!isStrings) return `${name} must be an array of strings`;
      return (value as string[]).every((p) => p.startsWith("/")) ? undefined : `${name} must hold absolute paths`;
    case "map":
      return isPlainObject(value) && Object.values(value).every((v) => typeof v === "string") ? undefined : `${name} must map strings to strings`;
    case "modalities":
      return Array.isArray(value) && value.every((v) => v === "image" || v === "audio") ? undefined : `${name} may only hold "image" and "audio"`;
    case "history":
      return Array.isArray(value) && value.every((h) => isPlainObject(h) && exactKeys(h, ["role", "text"]) && (h.role === "user" || h.role === "assistant") && typeof h.text === "string")
        ? undefined
        : `${name} items must be exactly {role: "user"|"assistant", text: string}`;
    case "media":
      return Array.isArray(value) && value.every((m) => isPlainObject(m) && exactKeys(m, ["type", "path"]) && (m.type === "image" || m.type === "audio") && typeof m.path === "string" && m.path.startsWith("/"))
        ? undefined
        : `${name} items must be exactly {type: "image"|"audio", path: <absolute path>}`;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function exactKeys(value: Record<string, unknown>, keys: string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((k) => own.includes(k));
}

const bytes = (text: string) => Buffer.byteLength(text);

/** A `\\uD800`–`\\uDFFF` escape that is itself not escaped (preceded by an even number of backslashes). */
const LONE_SURROGATE_ESCAPE = /(?<!\\)(?:\\\\)*\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

/** Why the host would refuse this run (the checks of docs/native-host-protocol.md §6.3, §10, §11 a client can make), or undefined. */
export function checkRun(run: Record<string, unknown>, hello: HelloInfo | undefined): string | undefined {
  for (const [name, value] of Object.entries(run)) {
    const kind = RUN_FIELDS[name as keyof RunParams];
    if (kind === undefined) return `unknown run field "${name}"`;
    if (value === null) return `${name} must be omitted rather than null`;
    const wrong = kindError(name, kind, value);
    if (wrong) return wrong;
  }
  for (const required of ["run_id", "workspace", "model", "prompt"]) if (run[required] === undefined) return `${required} is required`;
  const r = run as unknown as RunParams;
  const features = hello?.features ?? {};
  const offered = (feature: string) => features[feature] === true;
  const problem =
    checkId(r.run_id, "run_id") ??
    (r.session_id !== undefined ? checkSessionId(r.session_id) : undefined) ??
    (bytes(r.prompt) > 512 * KiB ? `prompt exceeds the ${512 * KiB}-byte limit` : undefined) ??
    (r.prompt_display_text !== undefined && !offered("prompt_display_text") ? "prompt_display_text is not offered by this host (hello features.prompt_display_text)" : undefined) ??
    (r.prompt_display_text !== undefined && (bytes(r.prompt_display_text) > 256 * KiB || hasControl(r.prompt_display_text, "\n\t"))
      ? `prompt_display_text must be at most ${256 * KiB} bytes without control characters other than newline and tab`
      : undefined) ??
    checkModelId(r.model) ??
    (r.provider !== undefined ? checkId(r.provider, "provider") : undefined) ??
    (r.api_key !== undefined && (bytes(r.api_key) > 64 * KiB || r.api_key.trim() !== r.api_key || hasControl(r.api_key))
      ? `api_key must be at most ${64 * KiB} bytes without surrounding whitespace or control characters`
      : undefined) ??
    checkRoute(r, offered) ??
    (r.history !== undefined && !offered("seed_history") ? "history is not offered by this host (hello features.seed_history)" : undefined) ??
    (r.history && r.history.length > 256 ? "history exceeds the 256-message limit" : undefined) ??
    (r.history && r.history.reduce((n, h) => n + bytes(h.text), 0) > 2 * 1024 * KiB ? `history exceeds the ${2 * 1024 * KiB}-byte limit` : undefined) ??
    checkMedia(r, offered) ??
    (r.input_modalities && (r.input_modalities.length > 2 || new Set(r.input_modalities).size !== r.input_modalities.length) ? "input_modalities contains duplicate or excess values" : undefined) ??
    (r.system_prompt !== undefined && bytes(r.system_prompt) > 512 * KiB ? `system prompt exceeds the ${512 * KiB}-byte limit` : undefined) ??
    // The host checks path components, where "." disappears; ".." stays and is refused.
    (r.session_dir !== undefined && r.session_dir.split("/").includes("..") ? "session_dir must not contain '..' components" : undefined);
  return problem;
}

/** Inline provider route fields (docs/native-host-protocol.md §11), when `base_url` is set. */
function checkRoute(r: RunParams, offered: (feature: string) => boolean): string | undefined {
  if (r.base_url === undefined || r.base_url.trim() === "") return undefined;
  if (!offered("inline_models")) return "inline model routes are not offered by this host (hello features.inline_models)";
  let url: URL;
  try {
    url = new URL(r.base_url.trim());
  } catch {
    return "base_url is not a valid URL";
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || !url.hostname || url.username || url.password || url.search || url.hash || r.base_url.includes("?") || r.base_url.includes("#")) {
    return "base_url must be an absolute HTTP(S) URL without userinfo, query, or fragment";
  }
  if (r.provider_mode !== undefined && !["openai-compatible", "openai-responses", "anthropic-messages"].includes(r.provider_mode)) {
    return `unsupported provider_mode ${JSON.stringify(r.provider_mode)}; use openai-compatible, openai-responses, or anthropic-messages`;
  }
  if (r.context_window_tokens === 0 || r.max_output_tokens === 0) return "context_window_tokens and max_output_tokens must be at least 1";
  const headers = Object.entries(r.custom_headers ?? {});
  if (headers.length > 64) return "custom_headers exceeds the 64-header limit";
  if (headers.reduce((n, [k, v]) => n + bytes(k) + bytes(v), 0) > 64 * KiB) return `custom_headers exceeds the ${64 * KiB}-byte limit`;
  for (const [name, value] of headers) {
    if (!HEADER_NAME.test(name)) return `invalid custom header name ${JSON.stringify(name)}`;
    if (FORBIDDEN_HEADERS.has(name.toLowerCase())) return `custom header ${name.toLowerCase()} is not allowed`;
    // HTTP field values: visible ASCII, space, tab and bytes ≥ 0x80 (non-ASCII text is sent as UTF-8).
    if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value)) return `invalid value for custom header ${name.toLowerCase()}`;
  }
  const audio = r.input_modalities?.includes("audio") || r.media?.some((m) => m.type === "audio");
  if (audio && (r.provider_mode ?? "openai-compatible") !== "openai-compatible") return "native audio input is only supported through openai-compatible (OpenAI Chat) inline routes";
  if (r.media?.some((m) => m.type === "audio") && !r.input_modalities?.includes("audio")) return 'inline native audio attachments require input_modalities to include "audio"';
  if (r.media?.some((m) => m.type === "audio" && !/\.(wav|mp3)$/i.test(m.path))) return "OpenAI Chat Completions accepts only WAV or MP3 audio attachments";
  return undefined;
}

/** Media shapes and counts (docs/native-host-protocol.md §10). Sizes are checked by the host, which reads the files. */
function checkMedia(r: RunParams, offered: (feature: string) => boolean): string | undefined {
  const media = r.media ?? [];
  const legacy = r.image_paths ?? [];
  if (media.length > 0 && !offered("typed_media_input")) return "media is not offered by this host (hello features.typed_media_input)";
  if (media.some((m) => m.type === "image") && !offered("typed_image_input")) return "image media is not offered by this host (hello features.typed_image_input)";
  if (media.some((m) => m.type === "audio") && !offered("typed_audio_input")) return "audio media is not offered by this host (hello features.typed_audio_input)";
  if (media.length > 0 && legacy.length > 0) return "media and legacy image_paths cannot be combined";
  const images = media.filter((m) => m.type === "image").length + legacy.length;
  const audio = media.length - media.filter((m) => m.type === "image").length;
  if (media.length + legacy.length > 12) return "media exceeds the 12-item limit";
  if (images > 8) return "media exceeds the 8-image limit";
  if (audio > 4) return "media exceeds the 4-audio limit";
  for (const m of media) {
    if (m.type === "image" && !IMAGE_EXT.test(m.path)) return `unsupported image extension for ${m.path} (png, jpg, jpeg, gif, webp)`;
    if (m.type === "audio" && !AUDIO_EXT.test(m.path)) return `unsupported audio extension for ${m.path} (wav, mp3, flac, opus, ogg, aac, m4a, pcm, pcm16)`;
  }
  for (const p of legacy) if (!IMAGE_EXT.test(p)) return `unsupported image extension for ${p} (png, jpg, jpeg, gif, webp)`;
  return undefined;
}

/**
 * The request line for `command` (JSON + LF), after every local check.
 * Throws {@link InvalidRequest}; nothing is written in that case.
 */
export function encodeRequest(
  command: Command,
  requestId: string,
  fields: Record<string, unknown>,
  hello: HelloInfo | undefined,
): string {
  const idProblem = checkId(requestId, "request_id");
  if (idProblem) throw new InvalidRequest(idProblem);
  if (requestId === "invalid") throw new InvalidRequest('request_id "invalid" is reserved for errors the host cannot attribute');
  if (hello && !hello.commands.includes(command)) throw new InvalidRequest(`the host does not offer the ${command} command (hello commands: ${hello.commands.join(", ")})`);
  const sent = stripUndefined(fields);
  if (command === "run") {
    const problem = checkRun(sent, hello);
    if (problem) throw new InvalidRequest(problem);
  } else if (command === "models") {
    for (const key of Object.keys(sent)) if (key !== "offline") throw new InvalidRequest(`unknown models field "${key}"`);
    if (sent.offline !== undefined && typeof sent.offline !== "boolean") throw new InvalidRequest("offline must be a boolean");
  } else if (Object.keys(sent).length > 0) {
    throw new InvalidRequest(`${command} takes no fields`);
  }
  const line = JSON.stringify({ protocol_version: 1, request_id: requestId, command, ...sent }) + "\n";
  // JSON.stringify escapes a lone surrogate as \udXXX, which the host's parser refuses.
  if (LONE_SURROGATE_ESCAPE.test(line)) throw new InvalidRequest(`the ${command} request holds a lone UTF-16 surrogate (text cut inside a character?), which is not valid UTF-8`);
  const limit = hello?.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  const size = bytes(line);
  if (size > limit) throw new InvalidRequest(`the ${command} request is ${size} bytes as a UTF-8 line, over the host's ${limit}-byte frame limit`);
  return line;
}

function stripUndefined(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out;
}
