import { CanonicalValueError, encodeCanonical } from "../../wire/canonical-frame.ts";
import type { ArgumentValidator } from "../arguments.ts";
import type { ToolRegistration } from "../registry.ts";
import type { HandlerContext, ShutdownHandler, ToolHandler } from "../types.ts";
import type { ServiceSelection } from "./negotiation.ts";
import { BOUNDS, SESSION_HOOKS, type SessionHookName } from "./canonical-protocol.ts";
import { apiRefusal } from "./canonical-refusals.ts";
import type { SessionHookHandler, ToolDefinition03 } from "./canonical-types.ts";

/** A registered API 0.3 tool. */
export interface ToolEntry03 {
  definition: ToolDefinition03;
  handler: ToolHandler<any>;
  validate?: ArgumentValidator;
}

/** What a service may do once the initialize reply is out. */
export interface HostLink {
  /** Capabilities and methods of the selected contract. */
  readonly capabilities: ReadonlySet<string>;
  readonly methods: ReadonlySet<string>;
  /** An extension→host request of a selected method; resolves with its checked result. */
  request(method: string, params: unknown): Promise<unknown>;
  /** An extension→host notification of a selected method. */
  notify(method: string, params: unknown): void;
}

/**
 * A group of optional API 0.3 methods the extension serves: the seam for
 * session hooks (here) and, in part B of issue 27, providers, migration
 * adapters, session lifecycle and the event bus. The connection admits,
 * validates params (`METHOD_MODELS`), cancels and answers; a service only
 * says what it selects and handles its own methods.
 */
export interface CanonicalService {
  /** What to select for this manifest's `contributes`; selected only when all of it is offered. */
  selection(contributes: Record<string, unknown>): ServiceSelection | undefined;
  /** A host→extension request of one of its selected methods; the value is the result. */
  request?(method: string, params: unknown, ctx: HandlerContext): unknown;
  /** A host→extension notification of one of its selected methods. */
  notification?(method: string, params: unknown): void;
  /** Called once the initialize reply was written. */
  ready?(link: HostLink): void;
  /** The stream is ending (`"shutdown"` or `"transport_lost"`). */
  stop?(reason: string): void;
}

/** Everything an author registered for API 0.3 before `run()`. Registration errors are plain `Error`s. */
export class CanonicalRegistry {
  readonly tools = new Map<string, ToolEntry03>();
  readonly sessionHooks = new Map<SessionHookName, SessionHookHandler<any>>();
  readonly services: CanonicalService[] = [];
  shutdownHandler: ShutdownHandler | undefined;
  private frozen = false;

  freeze(): void {
    this.frozen = true;
  }

  addTool(registration: ToolRegistration, handler: ToolHandler<any>, validate?: ArgumentValidator): void {
    this.open("tool");
    const name = registration?.name;
    if (typeof name !== "string" || name.trim() === "") throw new Error("tool name must be a non-blank string");
    if (Buffer.byteLength(name) > BOUNDS.max_tool_name_bytes) throw new Error(`tool \`${name}\`: the name exceeds ${BOUNDS.max_tool_name_bytes} bytes (API 0.3)`);
    const description = registration.description;
    if (typeof description !== "string" || description.trim() === "") throw new Error(`tool \`${name}\` description must be a non-blank string`);
    if (Buffer.byteLength(description) > BOUNDS.max_tool_description_bytes) throw new Error(`tool \`${name}\`: the description exceeds ${BOUNDS.max_tool_description_bytes} bytes (API 0.3)`);
    for (const key of ["promptSnippet", "promptGuidelines", "operation"] as const) {
      if (registration[key] !== undefined) throw new Error(`tool \`${name}\`: ${apiRefusal(key)}`);
    }
    if (this.tools.has(name)) throw new Error(`tool \`${name}\` is already registered`);
    if (this.tools.size >= BOUNDS.max_tools) throw new Error(`tool \`${name}\` would be the ${BOUNDS.max_tools + 1}th; API 0.3 allows ${BOUNDS.max_tools} tools`);
    if (typeof handler !== "function") throw new Error(`tool \`${name}\` needs a handler function`);
    if (validate !== undefined && typeof validate !== "function") throw new Error(`tool \`${name}\`: validate must be a function (args) => issues | null`);
    const parameters = registration.parameters ?? { type: "object" };
    const definition: ToolDefinition03 = { name, description, parameters: schema(name, "parameters", parameters) };
    if (registration.outputSchema !== undefined) definition.output_schema = schema(name, "outputSchema", registration.outputSchema);
    this.tools.set(name, validate === undefined ? { definition, handler } : { definition, handler, validate });
  }

  addSessionHook(name: string, handler: SessionHookHandler<any>): void {
    this.open("hook");
    if (!(SESSION_HOOKS as readonly string[]).includes(name)) throw new Error(`hook \`${name}\`: ${apiRefusal("hook")}`);
    if (this.sessionHooks.has(name as SessionHookName)) throw new Error(`hook \`${name}\` is already registered`);
    if (typeof handler !== "function") throw new Error(`hook \`${name}\` needs a handler function`);
    this.sessionHooks.set(name as SessionHookName, handler);
  }

  setShutdown(handler: ShutdownHandler): void {
    this.open("shutdown handler");
    if (this.shutdownHandler) throw new Error("a shutdown handler is already registered");
    this.shutdownHandler = handler;
  }

  /** Add a group of optional methods (the seam part B plugs providers, migration, sessions and the bus into). */
  addService(service: CanonicalService): void {
    this.open("service");
    this.services.push(service);
  }

  private open(what: string): void {
    if (this.frozen) throw new Error(`cannot register a ${what} after run() started`);
  }
}

/** A schema object, held to the canonical encoding (no floating-point numbers on API 0.3). */
function schema(tool: string, key: string, value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error(`tool \`${tool}\` ${key} must be a JSON Schema object`);
  try {
    encodeCanonical(value);
  } catch (error) {
    if (error instanceof CanonicalValueError) throw new Error(`tool \`${tool}\` ${key}: ${error.message.replace(/^\$/, key)} (API 0.3 sends it as octet-canonical-json-v1)`);
    throw error;
  }
  return value as Record<string, unknown>;
}
