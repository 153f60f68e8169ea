/**
 * Requests as the double understands them after the typed decode of
 * docs/native-host-protocol.md §5 (commands: §6). Field names are camelCase versions of the wire
 * names; optional fields sent as `null` are absent here (§5 null rules).
 */

export type Modality = "image" | "audio";

export interface MediaItem {
  type: Modality;
  path: string;
}

export interface HistoryItem {
  role: "user" | "assistant";
  text: string;
}

interface RequestBase {
  protocolVersion: number;
  requestId: string;
}

interface HelloRequest extends RequestBase {
  command: "hello";
}

interface ModelsRequest extends RequestBase {
  command: "models";
  offline: boolean;
}

interface ShutdownRequest extends RequestBase {
  command: "shutdown";
}

export interface RunRequest extends RequestBase {
  command: "run";
  runId: string;
  sessionId?: string;
  workspace: string;
  workingDir?: string;
  sessionDir?: string;
  resumeSession?: string;
  model: string;
  provider?: string;
  baseUrl?: string;
  apiKey?: string;
  /** In request order. */
  customHeaders: [string, string][];
  providerMode?: string;
  contextWindowTokens?: bigint;
  maxOutputTokens?: bigint;
  vision: boolean;
  inputModalities: Modality[];
  supportsReasoning: boolean;
  prompt: string;
  promptDisplayText?: string;
  systemPrompt?: string;
  reasoning?: string;
  /** Absent = the default tool surface; `[]` = no tools. */
  tools?: string[];
  allowFileMutation: boolean;
  allowExternalPaths: boolean;
  contextFiles: boolean;
  offline: boolean;
  maxTurns?: bigint;
  maxCostMicrodollars?: bigint;
  history: HistoryItem[];
  media: MediaItem[];
  imagePaths: string[];
  promptPaths: string[];
  skillPaths: string[];
  extensionPaths: string[];
  enabledExtensions: string[];
  trustedExtensions: string[];
}

export type Request = HelloRequest | ModelsRequest | ShutdownRequest | RunRequest;

export type CommandName = Request["command"];

export const COMMANDS: readonly CommandName[] = ["hello", "models", "run", "shutdown"];
