/**
 * Media loading after `accepted` (spec native-host §10): each `media` item
 * (or legacy `image_paths` entry) is resolved, confined to the workspace,
 * typed by extension, matched against the route's input capabilities,
 * size-checked and opened. The first failure is the run's `final_result`
 * error; nothing is sent anywhere (the double has no provider).
 */
import fs from "node:fs";
import path from "node:path";
import type { WireProtocol } from "./inline-route.ts";
import { isInside } from "./paths.ts";
import type { MediaItem } from "./requests.ts";

export interface MediaRoute {
  model: string;
  protocol: WireProtocol;
  imageInput: boolean;
  audioInput: boolean;
}

const IMAGE_EXTENSIONS = new Set(["png", "jpg", "jpeg", "gif", "webp"]);
const AUDIO_FORMATS: Readonly<Record<string, string>> = {
  wav: "wav",
  mp3: "mp3",
  flac: "flac",
  opus: "opus",
  ogg: "opus",
  aac: "aac",
  m4a: "aac",
  pcm: "pcm16",
  pcm16: "pcm16",
};
const IMAGE_MAX = 5 * 1024 * 1024;
const IMAGES_TOTAL_MAX = 20 * 1024 * 1024;
const AUDIO_MAX = 20 * 1024 * 1024;
const AUDIO_TOTAL_MAX = 40 * 1024 * 1024;

function extensionOf(p: string): string {
  return path.extname(p).slice(1).toLowerCase();
}

/** The audio format an attachment's extension names (`wav`, `mp3`, `flac`, `opus`, `aac`, `pcm16`), if any. */
export function audioFormatOf(p: string): string | undefined {
  return AUDIO_FORMATS[extensionOf(p)];
}

/** Formats the only audio-capable protocol (OpenAI Chat) accepts. */
export function chatAcceptsAudio(format: string): boolean {
  return format === "wav" || format === "mp3";
}

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

export function mediaLoadError(
  items: readonly MediaItem[],
  workspace: string,
  allowExternalPaths: boolean,
  route: MediaRoute,
): string | undefined {
  let imageBytes = 0;
  let audioBytes = 0;
  for (const { type, path: given } of items) {
    let real: string;
    try {
      real = fs.realpathSync(path.resolve(given));
    } catch (error) {
      return `resolving ${type} ${given}: ${osError(error)}`;
    }
    if (!allowExternalPaths && !isInside(real, workspace)) return `${type} ${given} is outside the configured workspace`;
    if (type === "image") {
      if (!IMAGE_EXTENSIONS.has(extensionOf(real))) return `unsupported image extension for ${given}`;
      if (!route.imageInput) return `model ${route.model} does not support native image input`;
    } else {
      const format = audioFormatOf(real);
      if (format === undefined) return `unsupported audio extension for ${given}`;
      if (!route.audioInput || route.protocol !== "OpenAiChat" || !chatAcceptsAudio(format)) {
        return `model ${route.model} does not support native ${format.toUpperCase()} audio input through ${route.protocol}`;
      }
    }
    let size: number;
    try {
      const fd = fs.openSync(real, "r");
      try {
        const stat = fs.fstatSync(fd);
        if (!stat.isFile()) return `reading ${type} ${given}: not a regular file`;
        size = stat.size;
      } finally {
        fs.closeSync(fd);
      }
    } catch (error) {
      return `reading ${type} ${given}: ${osError(error)}`;
    }
    if (type === "image") {
      if (size > IMAGE_MAX) return `image ${given} exceeds the ${IMAGE_MAX}-byte limit`;
      imageBytes += size;
      if (imageBytes > IMAGES_TOTAL_MAX) return `images exceed the ${IMAGES_TOTAL_MAX}-byte total limit`;
    } else {
      if (size > AUDIO_MAX) return `audio ${given} exceeds the ${AUDIO_MAX}-byte limit`;
      audioBytes += size;
      if (audioBytes > AUDIO_TOTAL_MAX) return `audio exceeds the ${AUDIO_TOTAL_MAX}-byte total limit`;
    }
  }
  return undefined;
}
