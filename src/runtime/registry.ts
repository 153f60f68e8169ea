import { isNonBlankString, isObject, isOneOf } from "../check.ts";
import { API02_HOOKS, IDENT as SHORTCUT_NAME, LEGACY_HOOKS, LIFECYCLE_METHODS, type LifecycleMethod, MAX_CATALOG_TOOLS, SURFACES } from "../protocol.ts";
import type { ArgumentValidator } from "./arguments.ts";
import { checkOutputSchema } from "./structured/output-schema.ts";
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

/** Re-exported for existing importers; defined with the other protocol facts in `src/protocol.ts`. */
export type { LifecycleMethod } from "../protocol.ts";

/** Everything an author registered before `run()`. Registration errors are plain `Error`s. */
export class Registry {
  readonly tools = new Map<string, ToolEntry>();
  readonly commands = new Map<string, CommandEntry>();
  readonly hooks = new Map<HookName, HookHandler<any>>();
  readonly statuses = new Map<Surface, StatusHandler>();
  readonly renderers = new Map<string, RendererHandler>();
  readonly lifecycle = new Map<LifecycleMethod, LifecycleHandler>();
  readonly shortcuts = new Map<string, ShortcutHandler>();
  contextHandler: ContextHandler | undefined;
  menuHandler: MenuHandler | undefined;
  shutdownHandler: ShutdownHandler | undefined;
  private frozen = false;

  constructor(readonly apiVersion: ApiVersion) {}

  /** Called when `run()` starts: registration is closed from then on. */
  freeze(): void {
    this.frozen = true;
  }

  addTool(definition: { name: string; description: string; parameters?: JsonObject; outputSchema?: JsonObject }, handler: ToolHandler<any>, validate?: ArgumentValidator): void {
    this.open("tool");
    const name = nonBlank(definition.name, "tool name");
    nonBlank(definition.description, `tool \`${name}\` description`);
    if (this.tools.has(name)) throw new Error(`tool \`${name}\` is already registered`);
    if (this.tools.size >= MAX_CATALOG_TOOLS) throw new Error(`tool \`${name}\` would be the ${MAX_CATALOG_TOOLS + 1}th; an extension declares at most ${MAX_CATALOG_TOOLS} tools`);
    if (typeof handler !== "function") throw new Error(`tool \`${name}\` needs a handler function`);
    const parameters = definition.parameters ?? { type: "object" };
    if (!isObject(parameters)) throw new Error(`tool \`${name}\` parameters must be a JSON Schema object`);
    const wire: ToolDefinition = { name, description: definition.description, parameters };
    if (definition.outputSchema !== undefined) {
      if (this.apiVersion === "0.1") throw new Error(`tool \`${name}\`: output_schema requires extension API 0.2`);
      if (!isObject(definition.outputSchema)) throw new Error(`tool \`${name}\` output_schema must be an object`);
      try {
        checkOutputSchema(definition.outputSchema);
      } catch (error) {
        throw new Error(`tool \`${name}\`: ${(error as Error).message}`);
      }
      wire.output_schema = definition.outputSchema;
    }
    if (validate !== undefined && typeof validate !== "function") throw new Error(`tool \`${name}\`: validate must be a function (args) => issues | null`);
    this.tools.set(name, validate === undefined ? { definition: wire, handler } : { definition: wire, handler, validate });
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
    const known = isOneOf(name, LEGACY_HOOKS) || isOneOf(name, API02_HOOKS);
    if (!known) throw new Error(`unknown hook \`${name}\`; expected one of ${[...LEGACY_HOOKS, ...API02_HOOKS].join(", ")}`);
    if (isOneOf(name, API02_HOOKS) && this.apiVersion === "0.1") {
      throw new Error(`hook \`${name}\` requires extension API 0.2`);
    }
    if (this.hooks.has(name)) throw new Error(`hook \`${name}\` is already registered`);
    this.hooks.set(name, handler);
  }

  setMenu(handler: MenuHandler): void {
    this.open("menu");
    if (this.apiVersion === "0.1") throw new Error("menus require extension API 0.2");
    if (this.menuHandler) throw new Error("a menu handler is already registered");
    if (typeof handler !== "function") throw new Error("the menu needs a handler function");
    this.menuHandler = handler;
  }

  addShortcut(name: string, handler: ShortcutHandler): void {
    this.open("shortcut");
    if (this.apiVersion === "0.1") throw new Error(`shortcut \`${name}\`: shortcuts require extension API 0.2`);
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
