/**
 * Inline provider routes (spec native-host §11): `base_url`,
 * `provider_mode`, custom headers and the SHA-256-derived model id.
 * Each check returns the `final_result` error text (§9.2) or undefined.
 */
import { createHash } from "node:crypto";

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

/** The protocol of a `provider_mode` (absent = openai-compatible); case and `_`/`-` are normalised. */
export function protocolForMode(mode: string | undefined): WireProtocol | undefined {
  if (mode === undefined) return "OpenAiChat";
  return MODE_ALIASES[mode.trim().toLowerCase().replaceAll("_", "-")];
}

export function unsupportedModeError(mode: string): string {
  return `unsupported provider_mode ${JSON.stringify(mode)}; use openai-compatible, openai-responses, or anthropic-messages`;
}

/** The normalised base URL (trailing `/` added), or the error text. */
export function normaliseBaseUrl(trimmed: string): { url: string } | { error: string } {
  const withSlash = trimmed.endsWith("/") ? trimmed : `${trimmed}/`;
  let parsed: URL;
  try {
    parsed = new URL(withSlash);
  } catch {
    return { error: "inline model base_url is invalid" };
  }
  const httpLike = parsed.protocol === "http:" || parsed.protocol === "https:";
  if (!httpLike || parsed.hostname === "" || parsed.username !== "" || parsed.password !== "" || /[?#@]/.test(withSlash)) {
    return { error: "inline model base_url must be an absolute HTTP(S) URL without userinfo, query, or fragment" };
  }
  return { url: withSlash };
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

/** Visible ASCII, space, tab and bytes ≥ 0x80; no other control characters. */
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
    if (!TOKEN.test(name)) return `invalid custom header name ${JSON.stringify(name)}`;
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
