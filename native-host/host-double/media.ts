/**
 * Media loading after `accepted` (docs/native-host-protocol.md §10): each `media` item
 * (or legacy `image_paths` entry) is resolved, confined to the workspace,
 * matched against the route's input capabilities and typed by extension
 * (images: capability first; audio: format first), then opened and
 * size-checked. The first failure is the run's `final_result` error;
 * nothing is sent anywhere (the double has no provider). Texts name the
 * path as given until it is resolved, the resolved path afterwards.
 */
import fs from "node:fs";
import path from "node:path";
import { audioFormatName, audioFormatOf, chatAcceptsAudio, extensionOf } from "./audio-formats.ts";
import type { WireProtocol } from "./inline-route.ts";
import { isInside } from "./paths.ts";
import type { MediaItem } from "./decoded-requests.ts";

export interface MediaRoute {
  /** The resolved model id (catalog id or `host-inline/…`). */
  resolvedModel: string;
  protocol: WireProtocol;
  imageInput: boolean;
  audioInput: boolean;
}

const IMAGE_EXTENSIONS = new Set(["png", "jpg", "jpeg", "gif", "webp"]);
const IMAGE_MAX = 5 * 1024 * 1024;
const IMAGES_TOTAL_MAX = 20 * 1024 * 1024;
const AUDIO_MAX = 20 * 1024 * 1024;
const AUDIO_TOTAL_MAX = 40 * 1024 * 1024;

/** The items in request order; legacy `image_paths` count as images. */
export function mediaItems(media: readonly MediaItem[], imagePaths: readonly string[]): MediaItem[] {
  return media.length > 0 ? [...media] : imagePaths.map((p) => ({ type: "image", path: p }));
}

/** An OS error as Rust's `io::Error` prints it. */
function osError(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  const known: Record<string, string> = {
    ENOENT: "No such file or directory (os error 2)",
    EACCES: "Permission denied (os error 13)",
    ENOTDIR: "Not a directory (os error 20)",
    ELOOP: "Too many levels of symbolic links (os error 40)",
    EISDIR: "Is a directory (os error 21)",
  };
  return (e.code !== undefined ? known[e.code] : undefined) ?? e.message;
}

/** The capability/type check of one resolved item, or its error text. */
function typeError(type: MediaItem["type"], resolved: string, route: MediaRoute): string | undefined {
  if (type === "image") {
    if (!route.imageInput) return `model ${route.resolvedModel} does not support native image input`;
    if (!IMAGE_EXTENSIONS.has(extensionOf(resolved))) return `unsupported image extension for ${resolved}`;
    return undefined;
  }
  const format = audioFormatOf(resolved);
  if (format === undefined) return `native audio attachment ${resolved} must use WAV or MP3`;
  if (!route.audioInput || route.protocol !== "OpenAiChat" || !chatAcceptsAudio(format)) {
    return `model ${route.resolvedModel} does not support native ${audioFormatName(format)} audio input through ${route.protocol}; native input accepts only WAV or MP3 on OpenAI Chat Completions`;
  }
  return undefined;
}

/** The size of a regular file, or the error text. */
function regularFileSize(type: MediaItem["type"], resolved: string): number | string {
  try {
    const fd = fs.openSync(resolved, "r");
    try {
      const stat = fs.fstatSync(fd);
      return stat.isFile() ? stat.size : `reading ${type} ${resolved}: not a regular file`;
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    return `reading ${type} ${resolved}: ${osError(error)}`;
  }
}

export function mediaLoadError(items: readonly MediaItem[], workspace: string, allowExternalPaths: boolean, route: MediaRoute): string | undefined {
  const totals = { image: 0, audio: 0 };
  for (const { type, path: given } of items) {
    let resolved: string;
    try {
      resolved = fs.realpathSync(path.resolve(given));
    } catch (error) {
      return `resolving ${type} ${given}: ${osError(error)}`;
    }
    if (!allowExternalPaths && !isInside(resolved, workspace)) return `${type} ${resolved} is outside the configured workspace`;
    const wrongType = typeError(type, resolved, route);
    if (wrongType !== undefined) return wrongType;
    const size = regularFileSize(type, resolved);
    if (typeof size === "string") return size;
    const [max, totalMax] = type === "image" ? [IMAGE_MAX, IMAGES_TOTAL_MAX] : [AUDIO_MAX, AUDIO_TOTAL_MAX];
    if (size > max) return `reading ${type} ${resolved}: file exceeds the ${max}-byte limit`;
    totals[type] += size;
    if (totals[type] > totalMax) return type === "image" ? `images exceed the ${totalMax}-byte total limit` : `audio exceeds the ${totalMax}-byte total limit`;
  }
  return undefined;
}
