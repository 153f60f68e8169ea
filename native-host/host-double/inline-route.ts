/**
 * Inline provider routes (docs/native-host-protocol.md §11): `base_url`,
 * `provider_mode`, the audio route rules, custom headers and the
 * SHA-256-derived model id. Each check returns the `final_result` error
 * text (§9.2) or undefined.
 */
import { createHash } from "node:crypto";
import { audioFormatName, audioFormatOf, chatAcceptsAudio } from "./audio-formats.ts";
import type { MediaItem } from "./decoded-requests.ts";
import { rustDebugString } from "./rust-debug.ts";

export type WireProtocol = "OpenAiChat" | "OpenAiResponses" | "AnthropicMessages";

const MODE_ALIASES: Readonly<Record<string, WireProtocol>> = {
  "": "OpenAiChat",
  "openai-compatible": "OpenAiChat",
  openai: "OpenAiChat",
  "openai-chat": "OpenAiChat",
  chat: "OpenAiChat",
  "openai-responses": "OpenAiResponses",
  responses: "OpenAiResponses",
  "anthropic-messages": "AnthropicMessages",
  anthropic: "AnthropicMessages",
  "anthropic-compatible": "AnthropicMessages",
};

/**
 * The protocol of a `provider_mode` (absent = openai-compatible), or the
 * error text, which quotes the mode as normalised (trimmed, ASCII
 * lower-case, `_` → `-`).
 */
export function protocolForMode(mode: string | undefined): { protocol: WireProtocol } | { error: string } {
  const normalised = (mode ?? "openai-compatible").trim().replace(/[A-Z]/g, (c) => c.toLowerCase()).replaceAll("_", "-");
  const protocol = MODE_ALIASES[normalised];
  if (protocol !== undefined) return { protocol };
  return { error: `unsupported provider_mode ${rustDebugString(normalised)}; use openai-compatible, openai-responses, or anthropic-messages` };
}

/**
 * The base URL as the route stores it (a `/` appended, then the URL
 * parser's serialisation), or the error text. `@` may appear in the path;
 * userinfo, a query (even an empty one) and a fragment may not.
 */
export function normaliseBaseUrl(trimmed: string): { url: string } | { error: string } {
  const withSlash = trimmed.endsWith("/") ? trimmed : `${trimmed}/`;
  let parsed: URL;
  try {
    parsed = new URL(withSlash);
  } catch {
    return { error: "inline model base_url is invalid" };
  }
  const httpLike = parsed.protocol === "http:" || parsed.protocol === "https:";
  // `search`/`hash` are "" for an empty query or fragment too; a raw `?`/`#` always starts one.
  if (!httpLike || parsed.hostname === "" || parsed.username !== "" || parsed.password !== "" || /[?#]/.test(withSlash)) {
    return { error: "inline model base_url must be an absolute HTTP(S) URL without userinfo, query, or fragment" };
  }
  return { url: parsed.href };
}

/**
 * §10/§11 inline audio rules: audio (declared in `input_modalities` or
 * attached) needs OpenAI Chat; an audio attachment needs `"audio"` in
 * `input_modalities`; on OpenAI Chat every audio attachment must be WAV or MP3.
 */
export function inlineAudioRouteError(media: readonly MediaItem[], inputModalities: readonly string[], protocol: WireProtocol): string | undefined {
  const audioDeclared = inputModalities.includes("audio");
  const attachments = media.filter((m) => m.type === "audio");
  if ((audioDeclared || attachments.length > 0) && protocol !== "OpenAiChat") {
    return `native audio input is unsupported through ${protocol}; use an OpenAI Chat Completions route with an audio-capable model (WAV or MP3 only)`;
  }
  if (attachments.length > 0 && !audioDeclared) return 'inline native audio attachments require input_modalities to include "audio"';
  for (const { path } of attachments) {
    const format = audioFormatOf(path);
    if (format === undefined) return `native audio attachment ${path} must use WAV or MP3`;
    if (!chatAcceptsAudio(format)) {
      return `native audio attachment ${path} uses ${audioFormatName(format)}; OpenAI Chat Completions accepts only WAV or MP3`;
    }
  }
  return undefined;
}

const MAX_HEADERS = 64;
const MAX_HEADER_BYTES = 65536;
const FORBIDDEN_HEADERS = new Set([
  "connection",
  "content-length",
  "host",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Visible ASCII, space, tab and characters ≥ U+0080; no other control characters. */
function isValidHeaderValue(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return false;
  }
  return true;
}

export function customHeadersError(headers: readonly (readonly [string, string])[]): string | undefined {
  if (headers.length > MAX_HEADERS) return `custom_headers exceeds the ${MAX_HEADERS}-header limit`;
  let bytes = 0;
  for (const [name, value] of headers) bytes += Buffer.byteLength(name, "utf8") + Buffer.byteLength(value, "utf8");
  if (bytes > MAX_HEADER_BYTES) return `custom_headers exceeds the ${MAX_HEADER_BYTES}-byte limit`;
  for (const [name, value] of headers) {
    if (!TOKEN.test(name)) return `invalid custom header name ${rustDebugString(name)}`;
    if (FORBIDDEN_HEADERS.has(name.toLowerCase())) return `custom header ${name.toLowerCase()} is not allowed`;
    if (!isValidHeaderValue(value)) return `invalid value for custom header ${name.toLowerCase()}`;
  }
  return undefined;
}

/** `host-inline/<24 hex>`: the first 12 bytes of SHA-256(url ⟨NUL⟩ protocol ⟨NUL⟩ provider ⟨NUL⟩ model). */
export function inlineModelId(url: string, protocol: WireProtocol, provider: string | undefined, model: string): string {
  const digest = createHash("sha256")
    .update([url, protocol, provider ?? "inline", model].join("\0"))
    .digest("hex");
  return `host-inline/${digest.slice(0, 24)}`;
}
