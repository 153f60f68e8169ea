/**
 * Model resolution of a run (docs/native-host-protocol.md §6.3 `model`, §11): with an
 * inline route the model gets the SHA-256-derived `host-inline/<hex>` id
 * and the capabilities the request asserts; without one, `model` must be
 * an id of the double's catalog (as the real host's catalog resolver
 * fails an unknown id with `Unknown model: ModelId("<id>")`).
 */
import type { CatalogModel } from "./catalog.ts";
import { inlineModelId, type WireProtocol } from "./inline-route.ts";
import type { MediaRoute } from "./media.ts";
import { rustDebugString } from "./rust-debug.ts";

export interface ResolvedRoute extends MediaRoute {
  inline: boolean;
}

/** A validated inline route: normalised base URL and protocol. */
export interface InlineRoute {
  url: string;
  protocol: WireProtocol;
}

interface RouteRequest {
  model: string;
  provider?: string;
}

/** The route, or the error text for a model id the catalog does not have. */
export function resolveRoute(
  request: RouteRequest,
  inline: InlineRoute | undefined,
  modalities: ReadonlySet<string>,
  catalog: readonly CatalogModel[],
): ResolvedRoute | { error: string } {
  if (inline !== undefined) {
    return {
      resolvedModel: inlineModelId(inline.url, inline.protocol, request.provider, request.model),
      protocol: inline.protocol,
      imageInput: modalities.has("image"),
      audioInput: modalities.has("audio") && inline.protocol === "OpenAiChat",
      inline: true,
    };
  }
  const known = catalog.find((m) => m.id === request.model);
  if (known === undefined) return { error: `Unknown model: ModelId(${rustDebugString(request.model)})` };
  return { resolvedModel: known.id, protocol: known.protocol, imageInput: known.vision, audioInput: known.audio, inline: false };
}
