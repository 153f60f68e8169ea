/**
 * What the double reports about itself: the `hello` data of octet 0.8.0
 * (seed 002, verbatim) and a small offline model catalog (spec §6.2).
 */
import type { WireProtocol } from "./inline-route.ts";

/** The hello `data` of the real 0.8.0 host, key order included. */
export function defaultHelloData(): Record<string, unknown> {
  return {
    sdk_version: "0.8.0",
    protocol_version: 1,
    max_frame_bytes: 1048576,
    max_concurrent_runs: 1,
    commands: ["hello", "models", "run", "shutdown"],
    features: {
      streaming: true,
      persistent_sessions: true,
      seed_history: true,
      typed_media_input: true,
      typed_image_input: true,
      typed_audio_input: true,
      prompt_display_text: true,
      inline_models: true,
      tools: true,
      skills: true,
      extensions: true,
      process_group_abort: true,
      in_band_abort: false,
    },
  };
}

/**
 * `defaults` with `patch` merged in: `null` removes a key, `features` is
 * merged one level deeper (unless the patch's value is not an object).
 */
export function mergeHelloData(defaults: Record<string, unknown>, patch: Record<string, unknown> | undefined): Record<string, unknown> {
  if (patch === undefined) return defaults;
  const out = { ...defaults };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete out[key];
    } else if (key === "features" && isPlainObject(value) && isPlainObject(out.features)) {
      const features: Record<string, unknown> = { ...out.features };
      for (const [name, flag] of Object.entries(value)) {
        if (flag === null) delete features[name];
        else features[name] = flag;
      }
      out.features = features;
    } else {
      out[key] = value;
    }
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One catalog entry, with the keys of spec §6.2. */
export interface CatalogModel {
  id: string;
  provider: string;
  api_name: string;
  display_name: string | null;
  protocol: WireProtocol;
  context_window: number;
  max_output_tokens: number;
  tools: boolean;
  vision: boolean;
  audio: boolean;
  input_modalities: string[];
  reasoning: boolean;
}

/** The offline catalog, sorted by id (what `models` returns whatever `offline` says). */
export const CATALOG: readonly CatalogModel[] = [
  {
    id: "claude-sonnet-4.5",
    provider: "anthropic",
    api_name: "claude-sonnet-4-5",
    display_name: "Claude Sonnet 4.5",
    protocol: "AnthropicMessages",
    context_window: 200000,
    max_output_tokens: 64000,
    tools: true,
    vision: true,
    audio: false,
    input_modalities: ["text", "image"],
    reasoning: true,
  },
  {
    id: "gpt-5.6",
    provider: "codex",
    api_name: "gpt-5.6",
    display_name: "GPT-5.6",
    protocol: "OpenAiResponses",
    context_window: 400000,
    max_output_tokens: 128000,
    tools: true,
    vision: true,
    audio: false,
    input_modalities: ["text", "image"],
    reasoning: true,
  },
  {
    id: "gpt-audio-1.5",
    provider: "openai",
    api_name: "gpt-audio-1.5",
    display_name: null,
    protocol: "OpenAiChat",
    context_window: 128000,
    max_output_tokens: 16384,
    tools: true,
    vision: true,
    audio: true,
    input_modalities: ["text", "image", "audio"],
    reasoning: false,
  },
];

export function findModel(id: string): CatalogModel | undefined {
  return CATALOG.find((m) => m.id === id);
}
