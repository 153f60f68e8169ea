/**
 * octet-extension: write octet extensions (API 0.1, 0.2, 0.3 and 0.4) in TypeScript on Bun.
 *
 * @example
 * import { Extension } from "octet-extension";
 * const ext = new Extension();
 * ext.tool({ name: "hello_world", description: "Greet someone" }, (args) => `Hello, ${args.name}!`);
 * await ext.run();
 */
import { Logger } from "./log.ts";
import { routeConsoleWhenHosted, writeStderrLine } from "./wire/stdio.ts";

// Runs at import: under an octet host, console output is structured from here on (docs/protocol-0.2.md §1.3).
routeConsoleWhenHosted(new Logger(writeStderrLine));

export { Extension, type ToolOptions } from "./runtime/extension.ts";
export type { ExtensionOptions } from "./runtime/options.ts";
export type { RunOptions } from "./runtime/serve.ts";
export type { DynamicToolDefinition } from "./runtime/catalog-changes.ts";
export type { FlagValue } from "./runtime/flags.ts";
export type { Host, ProgressOptions } from "./runtime/host-handle.ts";
export type { ArgumentIssue, ArgumentValidator } from "./runtime/arguments.ts";
export type { ToolRegistration } from "./runtime/registry.ts";
export { textContent, imageContent, audioContent, toolResult, persistenceMetadata, postMutationRescan, providerRetryDelay } from "./runtime/content.ts";
export type { ProgressEvent } from "./runtime/progress.ts";
export type { ArtifactSource, PolicyIntent, PolicyDecision } from "./runtime/services.ts";
export type { SpawnAgentOptions, ModelSelection } from "./runtime/agents.ts";
export type { CatalogUpdate } from "./runtime/catalog.ts";
export type { CompactionResult } from "./runtime/session-services.ts";
export type { PresentationSnapshot } from "./runtime/presentation/snapshot-types.ts";
export { MENU_STATES, type Menu, type MenuItem } from "./runtime/menu.ts";
export { BLOB_SCHEMA, type BlobRef, isBlobRef } from "./runtime/bulk.ts";
export { isResourceRef, type OperationDescriptor, type ResourceRef, type ResourceType } from "./runtime/resources.ts";
export { DIAGNOSTICS_KEY, type Diagnostic, type DiagnosticLocation, diagnosticSummary, validateDiagnostics } from "./runtime/diagnostics.ts";
export { CancellationToken } from "./runtime/cancellation.ts";
export { currentCancellation, currentRequestId } from "./runtime/scope.ts";
export { RpcError, ErrorCode } from "./errors.ts";
export { Logger, type LogLevel } from "./log.ts";
export type { RequestId } from "./wire/ids.ts";
export type * from "./runtime/types.ts";
export type * from "./runtime/kinds.ts";
export type { BusEvent, BusEventHandler, BusField, BusLifecycleHandler, BusLifecycleNotice, BusSubscription, EventBus } from "./runtime/v03/bus.ts";
export type { MigrationAdapter, MigrationDetection, MigrationDiagnostic, MigrationImport, MigrationMcpServer, MigrationModel, MigrationSkill } from "./runtime/v03/migration.ts";
export type { SessionLifecycle } from "./runtime/v03/sessions.ts";
export type { ToolResult03, ToolReturn03 } from "./runtime/v03/tool-return.ts";
export type { Disposition, SessionBinding, SessionEndPayload, SessionHookHandler, SessionHookPayloads, SessionHookReturn, SessionStartPayload } from "./runtime/v03/canonical-types.ts";

export type { ProviderAuth, ProviderAuthorizationResult, ProviderCalls, ProviderCatalogResult, ProviderDeclaration, ProviderEvent, ProviderEventKind, ProviderHandlers, ProviderModel, ProviderStreamContext, ProviderStreamHandler, ProviderStreamRequest, StopReason } from "./runtime/v03/provider-types.ts";
