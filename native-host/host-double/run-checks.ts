/**
 * The request-only checks of a `run` (docs/native-host-protocol.md §6.3 "Semantic
 * validation order", the real host's `validate_run_request`): sizes and
 * shapes that need no file system, in the host's order. The first failure
 * is returned as the `final_result` error text (§9.2).
 */
import { isValidId } from "./id-rules.ts";
import { customHeadersError, inlineAudioRouteError, normaliseBaseUrl, protocolForMode } from "./inline-route.ts";
import type { RunRequest } from "./decoded-requests.ts";
import type { InlineRoute } from "./route.ts";
import { hasControl, utf8Bytes } from "./text-rules.ts";

const PROMPT_MAX_BYTES = 524288;
const DISPLAY_TEXT_MAX_BYTES = 262144;
const SYSTEM_PROMPT_MAX_BYTES = 524288;
const MODEL_ID_MAX_BYTES = 512;
const API_KEY_MAX_BYTES = 65536;
const HISTORY_MAX_ITEMS = 256;
const HISTORY_MAX_BYTES = 2097152;
const MEDIA_MAX_ITEMS = 12;
const MEDIA_MAX_IMAGES = 8;
const MEDIA_MAX_AUDIO = 4;

/** The checks, then the inline route they validated (if `base_url` was given). */
export function checkRunRequest(request: RunRequest): { inline: InlineRoute | undefined } | { error: string } {
  const fail = (error: string) => ({ error });
  if (utf8Bytes(request.prompt) > PROMPT_MAX_BYTES) return fail(`prompt exceeds the ${PROMPT_MAX_BYTES}-byte limit`);
  const display = request.promptDisplayText;
  if (display !== undefined && (utf8Bytes(display) > DISPLAY_TEXT_MAX_BYTES || hasControl(display, ["\n", "\t"]))) {
    return fail(`prompt_display_text is malformed or exceeds the ${DISPLAY_TEXT_MAX_BYTES}-byte limit`);
  }
  const model = request.model;
  if (model.trim() === "" || model.trim() !== model || utf8Bytes(model) > MODEL_ID_MAX_BYTES || hasControl(model)) {
    return fail("model id is empty, malformed, or too long");
  }
  if (request.provider !== undefined && !isValidId(request.provider)) return fail("provider id is malformed or too long");
  const key = request.apiKey;
  if (key !== undefined && (utf8Bytes(key) > API_KEY_MAX_BYTES || key.trim() !== key || hasControl(key))) {
    return fail(`api_key is malformed or exceeds the ${API_KEY_MAX_BYTES}-byte limit`);
  }

  const baseUrl = request.baseUrl?.trim() ?? "";
  let inline: InlineRoute | undefined;
  if (baseUrl !== "") {
    const url = normaliseBaseUrl(baseUrl);
    if ("error" in url) return url;
    const mode = protocolForMode(request.providerMode);
    if ("error" in mode) return mode;
    const routeError = inlineAudioRouteError(request.media, request.inputModalities, mode.protocol);
    if (routeError !== undefined) return fail(routeError);
    const headersError = customHeadersError(request.customHeaders);
    if (headersError !== undefined) return fail(headersError);
    inline = { url: url.url, protocol: mode.protocol };
  }

  if (request.history.length > HISTORY_MAX_ITEMS) return fail(`history exceeds the ${HISTORY_MAX_ITEMS}-message limit`);
  const historyBytes = request.history.reduce((sum, item) => sum + utf8Bytes(item.text), 0);
  if (historyBytes > HISTORY_MAX_BYTES) return fail(`history exceeds the ${HISTORY_MAX_BYTES}-byte limit`);
  if (request.media.length > 0 && request.imagePaths.length > 0) return fail("media and legacy image_paths cannot be combined");
  const images = request.media.filter((m) => m.type === "image").length + request.imagePaths.length;
  const audio = request.media.filter((m) => m.type === "audio").length;
  if (images + audio > MEDIA_MAX_ITEMS) return fail(`media exceeds the ${MEDIA_MAX_ITEMS}-item limit`);
  if (images > MEDIA_MAX_IMAGES) return fail(`media exceeds the ${MEDIA_MAX_IMAGES}-image limit`);
  if (audio > MEDIA_MAX_AUDIO) return fail(`media exceeds the ${MEDIA_MAX_AUDIO}-audio limit`);
  if (request.inputModalities.length > 2 || new Set(request.inputModalities).size !== request.inputModalities.length) {
    return fail("input_modalities contains duplicate or excess values");
  }
  if (request.systemPrompt !== undefined && utf8Bytes(request.systemPrompt) > SYSTEM_PROMPT_MAX_BYTES) {
    return fail(`system prompt exceeds the ${SYSTEM_PROMPT_MAX_BYTES}-byte limit`);
  }
  return { inline };
}
