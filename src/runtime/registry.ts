import { isNonBlankString, isObject, isOneOf } from "../check.ts";
import { API02_HOOKS, API04_HOOKS, API04_UNSUPPORTED_HOOKS, type Feature, hookApi, IDENT as SHORTCUT_NAME, LEGACY_HOOKS, LIFECYCLE_METHODS, type LifecycleMethod, MAX_CATALOG_TOOLS, SURFACES } from "../protocol.ts";
import type { ArgumentValidator } from "./arguments.ts";
import { needsApiText } from "./refusals.ts";
import { checkOutputSchema } from "../output-schema.ts";
import { offPathModules } from "./lazy-host-calls.ts";
import type { OperationDescriptor, ResourceRegistry, ResourceType } from "./resources.ts";
import type {
  ApiVersion,
  CommandDefinition,
  CommandHandler,
  ContextHandler,
  HookHandler,
  HookName,
  JsonObject,
  LifecycleHandler,
  MenuHandler,
  RendererHandler,
  ShortcutHandler,
  ShutdownHandler,
  StatusHandler,
  Surface,
  ToolDefinition,
  ToolHandler,
} from "./types.ts";

/** A registered tool: its wire definition and its handler. */
export interface ToolEntry {
  definition: ToolDefinition;
  handler: ToolHandler<any>;
  /** Checks the arguments before the handler runs (see arguments.ts). */
  validate?: ArgumentValidator;
}

export interface CommandEntry {
  definition: CommandDefinition;
  handler: CommandHandler;
}


/** What `ext.tool()` takes besides the handler. */
export interface ToolRegistration {
  name: string;
  description: string;
  parameters?: JsonObject;
  outputSchema?: JsonObject;
  /** API 0.4: one line for the system prompt (≤ 1 KiB; tab and newline are the only controls allowed). */
  promptSnippet?: string;
  /** API 0.4: up to 16 guidelines for the system prompt (each ≤ 1 KiB). */
  promptGuidelines?: string[];
  /** API 0.4: where the arguments and result carry resource refs (register the types first). */
  operation?: OperationDescriptor;
}

const PROMPT_TEXT_BYTES = 1024;
const PROMPT_GUIDELINES = 16;
/** Controls octet refuses in prompt text (`char::is_control` but tab and newline): C0, DEL and C1. */
const PROMPT_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a tool's prompt metadata breaks octet's rules, if it does (docs/api-0.4.md "Prompt metadata"). */
export function promptMetadataProblem(snippet: unknown, guidelines: unknown): string | undefined {
  const text = (value: unknown, what: string) => {
    if (typeof value !== "string") return `${what} must be a string`;
    if (PROMPT_CONTROL.test(value)) return `${what} may contain no control characters but tab and newline`;
    if (LONE_SURROGATE.test(value)) return `${what} contains a lone surrogate`;
    if (Buffer.byteLength(value) > PROMPT_TEXT_BYTES) return `${what} exceeds ${PROMPT_TEXT_BYTES} bytes`;
    return undefined;
  };
  if (snippet !== undefined) {
    const problem = text(snippet, "prompt_snippet");
    if (problem) return problem;
  }
  if (guidelines !== undefined) {
    if (!Array.isArray(guidelines) || guidelines.length > PROMPT_GUIDELINES) return `prompt_guidelines must be an array of at most ${PROMPT_GUIDELINES} strings`;
    for (const guideline of guidelines) {
      const problem = text(guideline, "each prompt guideline");
      if (problem) return problem;
    }
  }
  return undefined;
}

/**
 * The definition sent to octet: prompt metadata only where
 * `tool_prompt_metadata_v1` was negotiated, the operation descriptor only
 * where `operation_descriptors_v1` was (octet rejects either otherwise).
 */
export function wireDefinition(definition: ToolDefinition, features: ReadonlySet<Feature> | readonly Feature[]): ToolDefinition {
  const has = (feature: Feature) => (Array.isArray(features) ? features.includes(feature) : (features as ReadonlySet<Feature>).has(feature));
  const prompt = (definition.prompt_snippet !== undefined || definition.prompt_guidelines !== undefined) && !has("tool_prompt_metadata_v1");
  const operation = definition.operation !== undefined && !has("operation_descriptors_v1");
  if (!prompt && !operation) return definition;
  const plain: ToolDefinition = { ...definition };
  if (prompt) {
    delete plain.prompt_snippet;
    delete plain.prompt_guidelines;
  }
  if (operation) delete plain.operation;
  return plain;
}

/** Everything an author registered before `run()`. Registration errors are plain `Error`s. */
export class Registry {
  readonly tools = new Map<string, ToolEntry>();
  readonly commands = new Map<string, CommandEntry>();
  readonly hooks = new Map<HookName, HookHandler<any>>();
  readonly statuses = new Map<Surface, StatusHandler>();
  readonly renderers = new Map<string, RendererHandler>();
  readonly lifecycle = new Map<LifecycleMethod, LifecycleHandler>();
  readonly shortcuts = new Map<string, ShortcutHandler>();
  /** Resource types (`ext.resourceType`) and the values behind the refs of this process. */
  readonly resourceTypes = new Map<string, ResourceType<any>>();
  private resourceRecords: ResourceRegistry | undefined;
  /** Made on first use: resource refs are rare, and nothing before the initialize reply needs them. */
  get resources(): ResourceRegistry {
    return (this.resourceRecords ??= new (offPathModules().resources.ResourceRegistry)());
  }
  contextHandler: ContextHandler | undefined;
  menuHandler: MenuHandler | undefined;
  shutdownHandler: ShutdownHandler | undefined;
  private frozen = false;

  constructor(readonly apiVersion: ApiVersion) {}

  /** Called when `run()` starts: registration is closed from then on. */
  freeze(): void {
    this.frozen = true;
  }

  addTool(definition: ToolRegistration, handler: ToolHandler<any>, validate?: ArgumentValidator): void {
    this.open("tool");
    const name = nonBlank(definition.name, "tool name");
    nonBlank(definition.description, `tool \`${name}\` description`);
    if (this.tools.has(name)) throw new Error(`tool \`${name}\` is already registered`);
    if (this.tools.size >= MAX_CATALOG_TOOLS) throw new Error(`tool \`${name}\` would be the ${MAX_CATALOG_TOOLS + 1}th; an extension declares at most ${MAX_CATALOG_TOOLS} tools`);
    if (typeof handler !== "function") throw new Error(`tool \`${name}\` needs a handler function`);
    const parameters = definition.parameters ?? { type: "object" };
    if (!isObject(parameters)) throw new Error(`tool \`${name}\` parameters must be a JSON Schema object`);
    const wire: ToolDefinition = { name, description: definition.description, parameters };
    if (definition.outputSchema !== undefined || definition.promptSnippet !== undefined || definition.promptGuidelines !== undefined || definition.operation !== undefined) {
      this.addOptionalMembers(wire, definition, parameters);
    }
    if (validate !== undefined && typeof validate !== "function") throw new Error(`tool \`${name}\`: validate must be a function (args) => issues | null`);
    this.tools.set(name, validate === undefined ? { definition: wire, handler } : { definition: wire, handler, validate });
  }

  /** {@link addTool}'s output schema, prompt metadata and operation (out of line: a function is linked whole on its first call). */
  private addOptionalMembers(wire: ToolDefinition, definition: ToolRegistration, parameters: JsonObject): void {
    const name = wire.name;
    if (definition.outputSchema !== undefined) {
      if (this.apiVersion === "0.1") throw new Error(`tool \`${name}\`: ${needsApiText("outputSchema", "0.2 or 0.4", this.apiVersion)}`);
      if (!isObject(definition.outputSchema)) throw new Error(`tool \`${name}\` outputSchema must be an object`);
      try {
        checkOutputSchema(definition.outputSchema);
      } catch (error) {
        throw new Error(`tool \`${name}\`: ${(error as Error).message}`);
      }
      wire.output_schema = definition.outputSchema;
    }
    if (definition.promptSnippet !== undefined || definition.promptGuidelines !== undefined) {
      if (this.apiVersion !== "0.4") throw new Error(`tool \`${name}\`: ${needsApiText("prompt metadata (promptSnippet, promptGuidelines)", "0.4", this.apiVersion)}`);
      const problem = promptMetadataProblem(definition.promptSnippet, definition.promptGuidelines);
      if (problem) throw new Error(`tool \`${name}\`: ${problem}`);
      if (definition.promptSnippet !== undefined) wire.prompt_snippet = definition.promptSnippet;
      if (definition.promptGuidelines !== undefined) wire.prompt_guidelines = [...definition.promptGuidelines];
    }
    if (definition.operation !== undefined) {
      if (this.apiVersion !== "0.4") throw new Error(`tool \`${name}\`: ${needsApiText("operation", "0.4", this.apiVersion)}`);
      const { checkOperationSchemas, operationWire } = offPathModules().resources;
      wire.operation = operationWire(definition.operation, this.resourceTypes, name);
      try {
        checkOutputSchema(parameters); // octet holds an operation's parameters to the output-schema subset
      } catch (error) {
        throw new Error(`tool \`${name}\` parameters: ${(error as Error).message.replace(/^output_schema/, "schema")}`);
      }
      checkOperationSchemas(wire.operation, parameters, wire.output_schema, name);
    }
  }

  addCommand(definition: { name: string; description: string; usage?: string }, handler: CommandHandler): void {
    this.open("command");
    const name = nonBlank(definition.name, "command name");
    nonBlank(definition.description, `command \`${name}\` description`);
    if (this.commands.has(name)) throw new Error(`command \`${name}\` is already registered`);
    if (typeof handler !== "function") throw new Error(`command \`${name}\` needs a handler function`);
    const wire: CommandDefinition = { name, description: definition.description };
    if (definition.usage !== undefined) wire.usage = definition.usage;
    this.commands.set(name, { definition: wire, handler });
  }

  addHook(name: HookName, handler: HookHandler<any>): void {
    this.open("hook");
    const since = hookApi(name);
    if (since === undefined) {
      if (isOneOf(name, API04_UNSUPPORTED_HOOKS)) throw new Error(`hook \`${name}\` is an API 0.4 hook this runtime does not implement (it needs a feature octet would require it to serve)`);
      throw new Error(`unknown hook \`${name}\`; expected one of ${[...LEGACY_HOOKS, ...API02_HOOKS, ...API04_HOOKS].join(", ")}`);
    }
    if (since === "0.2" && this.apiVersion === "0.1") throw new Error(needsApiText(`hook \`${name}\``, "0.2 or 0.4", this.apiVersion));
    if (since === "0.4" && this.apiVersion !== "0.4") throw new Error(needsApiText(`hook \`${name}\``, "0.4", this.apiVersion));
    if (this.hooks.has(name)) throw new Error(`hook \`${name}\` is already registered`);
    this.hooks.set(name, handler);
  }

  addResourceType(type: ResourceType<any>): void {
    this.open("resource type");
    if (this.apiVersion !== "0.4") throw new Error(`resource type ${type.name}: ${needsApiText("ext.resourceType()", "0.4", this.apiVersion)}`);
    if (this.resourceTypes.has(type.name)) throw new Error(`resource type ${type.name} is already registered`);
    this.resourceTypes.set(type.name, type);
  }

  setMenu(handler: MenuHandler): void {
    this.open("menu");
    if (this.apiVersion === "0.1") throw new Error(needsApiText("ext.menu()", "0.2 or 0.4", this.apiVersion));
    if (this.menuHandler) throw new Error("a menu handler is already registered");
    if (typeof handler !== "function") throw new Error("the menu needs a handler function");
    this.menuHandler = handler;
  }

  addShortcut(name: string, handler: ShortcutHandler): void {
    this.open("shortcut");
    if (this.apiVersion === "0.1") throw new Error(`shortcut \`${name}\`: ${needsApiText("ext.shortcut()", "0.2 or 0.4", this.apiVersion)}`);
    if (typeof name !== "string" || !SHORTCUT_NAME.test(name)) throw new Error(`shortcut name ${JSON.stringify(name)} must match ^[A-Za-z_][A-Za-z0-9_.-]{0,63}$`);
    if (this.shortcuts.has(name)) throw new Error(`shortcut \`${name}\` is already registered`);
    if (typeof handler !== "function") throw new Error(`shortcut \`${name}\` needs a handler function`);
    this.shortcuts.set(name, handler);
  }

  setContext(handler: ContextHandler): void {
    this.open("context provider");
    if (this.contextHandler) throw new Error("a context provider is already registered");
    this.contextHandler = handler;
  }

  addStatus(surface: Surface, handler: StatusHandler): void {
    this.open("status provider");
    if (!SURFACES.includes(surface)) throw new Error(`unknown surface \`${surface}\`; expected status, header or footer`);
    if (this.statuses.has(surface)) throw new Error(`a status provider for \`${surface}\` is already registered`);
    this.statuses.set(surface, handler);
  }

  addRenderer(name: string, handler: RendererHandler): void {
    this.open("renderer");
    nonBlank(name, "renderer name");
    if (this.renderers.has(name)) throw new Error(`renderer \`${name}\` is already registered`);
    this.renderers.set(name, handler);
  }

  addLifecycle(event: string, handler: LifecycleHandler): void {
    this.open("lifecycle handler");
    const method = event.replace("_", "/") as LifecycleMethod;
    if (!LIFECYCLE_METHODS.includes(method)) {
      throw new Error(`unknown lifecycle event \`${event}\`; expected one of ${LIFECYCLE_METHODS.join(", ")}`);
    }
    if (this.lifecycle.has(method)) throw new Error(`a lifecycle handler for \`${method}\` is already registered`);
    this.lifecycle.set(method, handler);
  }

  setShutdown(handler: ShutdownHandler): void {
    this.open("shutdown handler");
    if (this.shutdownHandler) throw new Error("a shutdown handler is already registered");
    this.shutdownHandler = handler;
  }

  private open(what: string): void {
    if (this.frozen) throw new Error(`cannot register a ${what} after run() started`);
  }
}

function nonBlank(value: unknown, what: string): string {
  if (!isNonBlankString(value)) throw new Error(`${what} must be a non-blank string`);
  return value;
}
