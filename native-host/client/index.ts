/**
 * `octet-native-host`: drive octet's `octet-host` (native-host
 * protocol 1) from TypeScript. See docs/native-host.md.
 */
export { NativeHost, type LaunchOptions, type RunControl } from "./client.ts";
export { minimalEnv, type MinimalEnvOptions } from "./environment.ts";
export { PROVIDER_CREDENTIAL_VARS, providerEnv } from "./provider-credentials.ts";
export * from "./errors.ts";
export type { EventDataByType, FinalResultData, HostEvent, KnownEventType, ModelInfo, RunStatus, UnknownHostEvent, Usage } from "./events.ts";
export type { HelloInfo } from "./hello.ts";
export type { Exit } from "./process-group.ts";
export type { Command, HistoryItem, MediaItem, ProviderMode, RunOptions, RunParams } from "./requests.ts";
export { RunHandle, type DiscardProvisionalEvent, type RunEvent, type RunResult, type ToolCall } from "./run.ts";
export { Supervisor, type SupervisedRunOptions, type SupervisedRunParams, type SupervisorOptions } from "./supervisor.ts";
