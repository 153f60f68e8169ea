/**
 * Audio formats by file extension (docs/native-host-protocol.md §10): `wav`, `mp3`,
 * `flac`, `opus`/`ogg`, `aac`/`m4a`, `pcm`/`pcm16` (case-insensitive),
 * named in error texts as the real host does (`WAV`, `Opus`, …). Only
 * OpenAI Chat takes native audio, and only WAV and MP3.
 */
import path from "node:path";

type AudioFormat = "wav" | "mp3" | "flac" | "opus" | "aac" | "pcm16";

const BY_EXTENSION: Readonly<Record<string, AudioFormat>> = {
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

const NAMES: Readonly<Record<AudioFormat, string>> = { wav: "WAV", mp3: "MP3", flac: "FLAC", opus: "Opus", aac: "AAC", pcm16: "PCM16" };

/** The lower-cased extension of a path, without the dot ("" when none). */
export function extensionOf(p: string): string {
  return path.extname(p).slice(1).toLowerCase();
}

/** The audio format a path's extension names, if any. */
export function audioFormatOf(p: string): AudioFormat | undefined {
  return BY_EXTENSION[extensionOf(p)];
}

export function audioFormatName(format: AudioFormat): string {
  return NAMES[format];
}

/** Formats OpenAI Chat (the only audio-capable protocol) accepts. */
export function chatAcceptsAudio(format: AudioFormat): boolean {
  return format === "wav" || format === "mp3";
}
