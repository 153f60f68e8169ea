/**
 * The double's model catalog (docs/native-host-protocol.md §6.2): what `models`
 * returns and what a catalog-routed `run` (no `base_url`) resolves its
 * `model` against. A small offline default, into which a scenario's
 * `catalog` entries are merged by id.
 */
import type { WireProtocol } from "./inline-route.ts";

/** One catalog entry, with the keys of docs/native-host-protocol.md §6.2 in the real host's order. */
export interface CatalogModel {
  id: string;
  provider: string;
  api_name: string;
  display_name: string | null;
  protocol: WireProtocol;
  context_window: number;
  max_output_tokens: number;
  tools: boolean;
  /** Route-effective image input. */
  vision: boolean;
  /** Route-effective native audio input (only on OpenAI Chat). */
  audio: boolean;
  /** `text`, then `image`/`audio` as effective (derived from `vision`/`audio`). */
  input_modalities: string[];
  reasoning: boolean;
}

/**
 * A scenario's catalog entry: `id` and any of the other keys except
 * `input_modalities`, which is derived. Omitted keys default to an OpenAI
 * Chat text model: provider "openai", api_name = id, display_name null,
 * context window 128000, 16384 output tokens, tools, no image/audio input,
 * no reasoning.
 */
export type CatalogEntry = Partial<Omit<CatalogModel, "input_modalities">> & { id: string };

/** The full model of an entry (omitted keys at their defaults). */
function catalogModel(e: CatalogEntry): CatalogModel {
  const vision = e.vision ?? false;
  const audio = e.audio ?? false;
  const modalities = ["text"];
  if (vision) modalities.push("image");
  if (audio) modalities.push("audio");
  return {
    id: e.id,
    provider: e.provider ?? "openai",
    api_name: e.api_name ?? e.id,
    display_name: e.display_name ?? null,
    protocol: e.protocol ?? "OpenAiChat",
    context_window: e.context_window ?? 128000,
    max_output_tokens: e.max_output_tokens ?? 16384,
    tools: e.tools ?? true,
    vision,
    audio,
    input_modalities: modalities,
    reasoning: e.reasoning ?? false,
  };
}

const DEFAULT_ENTRIES: readonly CatalogEntry[] = [
  {
    id: "claude-sonnet-4.5",
    provider: "anthropic",
    api_name: "claude-sonnet-4-5",
    display_name: "Claude Sonnet 4.5",
    protocol: "AnthropicMessages",
    context_window: 200000,
    max_output_tokens: 64000,
    vision: true,
    reasoning: true,
  },
  {
    id: "gpt-5.6",
    provider: "codex",
    display_name: "GPT-5.6",
    protocol: "OpenAiResponses",
    context_window: 400000,
    max_output_tokens: 128000,
    vision: true,
    reasoning: true,
  },
  { id: "gpt-audio-1.5", vision: true, audio: true },
];

/** The default catalog with `extra` merged by id (an entry with a known id overrides that model's keys), sorted by id. */
export function buildCatalog(extra: readonly CatalogEntry[] = []): CatalogModel[] {
  const byId = new Map<string, CatalogEntry>();
  for (const e of [...DEFAULT_ENTRIES, ...extra]) byId.set(e.id, { ...byId.get(e.id), ...e });
  return [...byId.values()].map(catalogModel).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
