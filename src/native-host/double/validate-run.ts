/**
 * Semantic validation of a decoded `run` (spec native-host §6.3, "Semantic
 * validation order"), ending with the session file being chosen and opened.
 * The first failure wins and becomes a `final_result` with status `error`
 * at seq 1 (§9.2); success yields the {@link RunPlan} the run is served from.
 */
import path from "node:path";
import { findModel } from "./catalog.ts";
import { isValidId } from "./ids.ts";
import {
  customHeadersError,
  inlineModelId,
  normaliseBaseUrl,
  protocolForMode,
  unsupportedModeError,
  type WireProtocol,
} from "./inline-route.ts";
import { audioFormatOf, chatAcceptsAudio, type MediaRoute } from "./media.ts";
import { canonical, canonicalWithMissingTail, hasDotComponent, isDirectory, isInside } from "./paths.ts";
import { reasoningError, registeredTools } from "./policy.ts";
import type { RunRequest } from "./requests.ts";
import { chooseSessionFile, openSession, type SessionChoice } from "./sessions.ts";
import { hasControl, utf8Bytes } from "./text-rules.ts";

export const PROMPT_MAX_BYTES = 524288;
export const DISPLAY_TEXT_MAX_BYTES = 262144;
export const SYSTEM_PROMPT_MAX_BYTES = 524288;
const MODEL_ID_MAX_BYTES = 512;
const API_KEY_MAX_BYTES = 65536;
const HISTORY_MAX_ITEMS = 256;
const HISTORY_MAX_BYTES = 2097152;
const MEDIA_MAX_ITEMS = 12;
const MEDIA_MAX_IMAGES = 8;
const MEDIA_MAX_AUDIO = 4;

export interface ResolvedRoute extends MediaRoute {
  /** Catalog id, or `host-inline/<24 hex>`. */
  resolvedModel: string;
  inline: boolean;
}

export interface RunPlan {
  request: RunRequest;
  /** Canonical workspace. */
  workspace: string;
  workingDir: string;
  sessionDir: string;
  session: SessionChoice;
  registeredTools: string[];
  route: ResolvedRoute;
}

export type RunValidation = { ok: true; plan: RunPlan } | { ok: false; error: string };

function fail(error: string): RunValidation {
  return { ok: false, error };
}

export function validateRun(request: RunRequest): RunValidation {
  if (utf8Bytes(request.prompt) > PROMPT_MAX_BYTES) return fail(`prompt exceeds the ${PROMPT_MAX_BYTES}-byte limit`);
  const display = request.promptDisplayText;
  if (display !== undefined && (utf8Bytes(display) > DISPLAY_TEXT_MAX_BYTES || hasControl(display, ["\n", "\t"]))) {
    return fail(`prompt_display_text is malformed or exceeds the ${DISPLAY_TEXT_MAX_BYTES}-byte limit`);
  }
  const model = request.model;
  if (model === "" || model.trim() !== model || utf8Bytes(model) > MODEL_ID_MAX_BYTES || hasControl(model)) {
    return fail("model id is empty, malformed, or too long");
  }
  if (request.provider !== undefined && !isValidId(request.provider)) return fail("provider id is malformed or too long");
  const key = request.apiKey;
  if (key !== undefined && (utf8Bytes(key) > API_KEY_MAX_BYTES || key.trim() !== key || hasControl(key))) {
    return fail(`api_key is malformed or exceeds the ${API_KEY_MAX_BYTES}-byte limit`);
  }

  const modalities = new Set(request.inputModalities);
  if (request.vision) modalities.add("image");
  const baseUrl = request.baseUrl?.trim() ?? "";
  let inline: { url: string; protocol: WireProtocol } | undefined;
  if (baseUrl !== "") {
    const url = normaliseBaseUrl(baseUrl);
    if ("error" in url) return fail(url.error);
    const protocol = protocolForMode(request.providerMode);
    if (protocol === undefined) return fail(unsupportedModeError(request.providerMode ?? ""));
    const routeError = inlineAudioRouteError(request, protocol, modalities.has("audio"));
    if (routeError !== undefined) return fail(routeError);
    const headersError = customHeadersError(request.customHeaders);
    if (headersError !== undefined) return fail(headersError);
    inline = { url: url.url, protocol };
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

  const workspace = canonical(request.workspace);
  if (workspace === undefined || !isDirectory(workspace)) return fail(`workspace ${request.workspace} is unavailable`);
  let workingDir = workspace;
  if (request.workingDir !== undefined) {
    const dir = canonical(request.workingDir);
    if (dir === undefined || !isDirectory(dir)) return fail("working directory is unavailable");
    if (!isInside(dir, workspace)) return fail("working directory must stay inside the workspace");
    workingDir = dir;
  }
  const sessionDirGiven = request.sessionDir ?? path.join(".octet", "sessions");
  if (hasDotComponent(sessionDirGiven)) return fail("session directory must not contain '.' or '..' components");
  const sessionDir = canonicalWithMissingTail(path.isAbsolute(sessionDirGiven) ? sessionDirGiven : path.join(workspace, sessionDirGiven));
  if (!request.allowExternalPaths && !isInside(sessionDir, workspace)) {
    return fail("session directory must stay inside the workspace unless allow_external_paths is enabled");
  }
  const tools = registeredTools(request.tools);
  if ("error" in tools) return fail(tools.error);
  const reasoning = reasoningError(request.reasoning);
  if (reasoning !== undefined) return fail(reasoning);

  const route = resolveRoute(request, inline, modalities);
  const chosen = chooseSessionFile(request, sessionDir);
  if ("error" in chosen) return fail(chosen.error);
  const openError = openSession(chosen.choice, request);
  if (openError !== undefined) return fail(openError);

  return {
    ok: true,
    plan: { request, workspace, workingDir, sessionDir, session: chosen.choice, registeredTools: tools.tools, route },
  };
}

/** §10/§11 inline checks: audio needs OpenAI Chat, an audio attachment needs the `audio` modality, Chat takes only WAV/MP3. */
function inlineAudioRouteError(request: RunRequest, protocol: WireProtocol, audioDeclared: boolean): string | undefined {
  const attachments = request.media.filter((m) => m.type === "audio");
  if ((audioDeclared || attachments.length > 0) && protocol !== "OpenAiChat") {
    return `native audio input is unsupported through ${protocol}; use provider_mode openai-compatible (OpenAI Chat Completions)`;
  }
  if (attachments.length > 0 && !audioDeclared) return 'inline native audio attachments require input_modalities to include "audio"';
  for (const { path: given } of attachments) {
    const format = audioFormatOf(given);
    if (format !== undefined && !chatAcceptsAudio(format)) {
      return `native audio attachment ${given} uses ${format.toUpperCase()}; OpenAI Chat Completions accepts only WAV or MP3`;
    }
  }
  return undefined;
}

/**
 * The model route. Catalog ids of the double's catalog carry their
 * capabilities; any other well-formed id is taken as a catalog model of the
 * user's installation (OpenAI Chat, image and audio input) — the double
 * cannot know a real installation's catalog.
 */
function resolveRoute(
  request: RunRequest,
  inline: { url: string; protocol: WireProtocol } | undefined,
  modalities: ReadonlySet<string>,
): ResolvedRoute {
  if (inline !== undefined) {
    return {
      model: request.model,
      resolvedModel: inlineModelId(inline.url, inline.protocol, request.provider, request.model),
      protocol: inline.protocol,
      imageInput: modalities.has("image"),
      audioInput: modalities.has("audio") && inline.protocol === "OpenAiChat",
      inline: true,
    };
  }
  const known = findModel(request.model);
  return {
    model: request.model,
    resolvedModel: request.model,
    protocol: known?.protocol ?? "OpenAiChat",
    imageInput: known?.vision ?? true,
    audioInput: known?.audio ?? true,
    inline: false,
  };
}
