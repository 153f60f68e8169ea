/**
 * The `run` request's field set and typed readers (docs/native-host-protocol.md §6.3).
 * The keys of {@link RUN_FIELDS} are exactly the run-specific wire names a
 * request may carry; anything else is an unknown field (§5 step 4).
 */
import type { JsonValue } from "./request-json.ts";
import type { HistoryItem, MediaItem, Modality, RunRequest } from "./decoded-requests.ts";
import {
  readBool,
  readOptional,
  readPath,
  readSequence,
  readString,
  readStringMap,
  readStruct,
  readUnsigned,
  readVariant,
} from "./typed-values.ts";

/** The run fields being filled in by the decode (envelope fields are set by the caller). */
type RunDraft = Omit<RunRequest, "command" | "protocolVersion" | "requestId" | "runId" | "workspace" | "model" | "prompt"> &
  Partial<Pick<RunRequest, "runId" | "workspace" | "model" | "prompt">>;

const MODALITIES: readonly Modality[] = ["image", "audio"];

function readMediaItem(value: JsonValue): MediaItem {
  let type: Modality | undefined;
  let path: string | undefined;
  readStruct(
    value,
    "MediaInput",
    {
      type: (v) => (type = readVariant(v, MODALITIES)),
      path: (v) => (path = readPath(v)),
    },
    ["type", "path"],
  );
  return { type: type as Modality, path: path as string };
}

function readHistoryItem(value: JsonValue): HistoryItem {
  let role: HistoryItem["role"] | undefined;
  let text: string | undefined;
  readStruct(
    value,
    "HistoryMessage",
    {
      role: (v) => (role = readVariant(v, ["user", "assistant"] as const)),
      text: (v) => (text = readString(v)),
    },
    ["role", "text"],
  );
  return { role: role as HistoryItem["role"], text: text as string };
}

const optionalString = (v: JsonValue) => readOptional(v, (x) => readString(x));
const optionalPath = (v: JsonValue) => readOptional(v, readPath);
const optionalU64 = (v: JsonValue) => readOptional(v, (x) => readUnsigned(x, 64));
const pathList = (v: JsonValue) => readSequence(v, readPath);
const stringList = (v: JsonValue) => readSequence(v, (x) => readString(x));

/** Reader per run-specific wire field, in the order of docs/native-host-protocol.md §6.3's table. */
export const RUN_FIELDS: Readonly<Record<string, (value: JsonValue, draft: RunDraft) => void>> = {
  run_id: (v, d) => (d.runId = readString(v)),
  session_id: (v, d) => (d.sessionId = optionalString(v)),
  workspace: (v, d) => (d.workspace = readPath(v)),
  working_dir: (v, d) => (d.workingDir = optionalPath(v)),
  session_dir: (v, d) => (d.sessionDir = optionalPath(v)),
  resume_session: (v, d) => (d.resumeSession = optionalPath(v)),
  model: (v, d) => (d.model = readString(v)),
  provider: (v, d) => (d.provider = optionalString(v)),
  base_url: (v, d) => (d.baseUrl = optionalString(v)),
  api_key: (v, d) => (d.apiKey = optionalString(v)),
  custom_headers: (v, d) => (d.customHeaders = readStringMap(v)),
  provider_mode: (v, d) => (d.providerMode = optionalString(v)),
  context_window_tokens: (v, d) => (d.contextWindowTokens = optionalU64(v)),
  max_output_tokens: (v, d) => (d.maxOutputTokens = optionalU64(v)),
  vision: (v, d) => (d.vision = readBool(v)),
  input_modalities: (v, d) => (d.inputModalities = readSequence(v, (x) => readVariant(x, MODALITIES))),
  supports_reasoning: (v, d) => (d.supportsReasoning = readBool(v)),
  prompt: (v, d) => (d.prompt = readString(v)),
  prompt_display_text: (v, d) => (d.promptDisplayText = optionalString(v)),
  system_prompt: (v, d) => (d.systemPrompt = optionalString(v)),
  reasoning: (v, d) => (d.reasoning = optionalString(v)),
  tools: (v, d) => (d.tools = readOptional(v, stringList)),
  allow_file_mutation: (v, d) => (d.allowFileMutation = readBool(v)),
  allow_external_paths: (v, d) => (d.allowExternalPaths = readBool(v)),
  context_files: (v, d) => (d.contextFiles = readBool(v)),
  offline: (v, d) => (d.offline = readBool(v)),
  max_turns: (v, d) => (d.maxTurns = optionalU64(v)),
  max_cost_microdollars: (v, d) => (d.maxCostMicrodollars = optionalU64(v)),
  history: (v, d) => (d.history = readSequence(v, readHistoryItem)),
  media: (v, d) => (d.media = readSequence(v, readMediaItem)),
  image_paths: (v, d) => (d.imagePaths = pathList(v)),
  prompt_paths: (v, d) => (d.promptPaths = pathList(v)),
  skill_paths: (v, d) => (d.skillPaths = pathList(v)),
  extension_paths: (v, d) => (d.extensionPaths = pathList(v)),
  enabled_extensions: (v, d) => (d.enabledExtensions = stringList(v)),
  trusted_extensions: (v, d) => (d.trustedExtensions = stringList(v)),
};

/** Required run fields, in declaration order (the first missing one is reported). */
export const RUN_REQUIRED: readonly string[] = ["run_id", "workspace", "model", "prompt"];

/** A draft with every optional field at its default. */
export function emptyRunDraft(): RunDraft {
  return {
    customHeaders: [],
    vision: false,
    inputModalities: [],
    supportsReasoning: false,
    allowFileMutation: true,
    allowExternalPaths: false,
    contextFiles: true,
    offline: false,
    history: [],
    media: [],
    imagePaths: [],
    promptPaths: [],
    skillPaths: [],
    extensionPaths: [],
    enabledExtensions: [],
    trustedExtensions: [],
  };
}
