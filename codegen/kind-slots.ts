/**
 * The typed slots of the kinds `[contributes]` declares — hooks, UI surfaces,
 * the context provider, tool renderers — and the optional lifecycle
 * observers, in the generated module: their interfaces, their members of
 * `Handlers` and their lines of `register()` (docs/kinds.md). Tools,
 * commands, shortcuts and the menu are rendered by types.ts.
 */
import type { AuthorManifest } from "./manifest.ts";

/** What `[contributes]` declares that needs a handler. */
export interface DeclaredKinds {
  hooks: string[];
  ui: string[];
  context: boolean;
  renderers: string[];
  /** Lifecycle observers exist from API 0.2 (not declared: octet sends the events handled). */
  lifecycle: boolean;
}

export function declaredKinds(m: AuthorManifest): DeclaredKinds {
  const list = (key: string) => (Array.isArray(m.contributes[key]) ? (m.contributes[key] as string[]) : []);
  return { hooks: list("hooks"), ui: list("ui"), context: m.contributes.context === true, renderers: list("tool_renderers"), lifecycle: m.apiVersion !== "0.1" };
}

/** The pieces of the generated module for these kinds. */
export interface KindSlotText {
  imports: string[];
  interfaces: string[];
  members: string[];
  register: string[];
  helpers: string[];
}

/** A property key: bare when it is an identifier (TypeScript's messages then name it unquoted). */
const key = (name: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name));

export function kindSlotText(m: AuthorManifest): KindSlotText {
  const k = declaredKinds(m);
  const out: KindSlotText = { imports: [], interfaces: [], members: [], register: [], helpers: [] };
  if (m.apiVersion === "0.3") return v03Slots(m, sessionHookSlots(k.hooks, out));
  if (k.hooks.length > 0) {
    out.imports.push("HookSlot");
    out.interfaces.push("/** One handler per declared hook (`contributes.hooks`): the payload octet sends in, the hook's answer out (docs/kinds.md). */", "export interface HookHandlers {");
    for (const hook of k.hooks) out.interfaces.push(`  ${key(hook)}: HookSlot<${JSON.stringify(hook)}>;`);
    out.interfaces.push("}", "");
    out.members.push("  hooks: HookHandlers;");
    out.register.push(`  for (const hook of ${JSON.stringify(k.hooks)} as const) ext.hook(hook, own(handlers.hooks, hook, "hook"));`);
  }
  if (k.ui.length > 0) {
    out.imports.push("StatusHandler", "StatusSlot", "Surface");
    out.interfaces.push("/** One status provider per declared UI surface (`contributes.ui`): the item octet shows there, or null. */", "export interface UiHandlers {");
    for (const surface of k.ui) out.interfaces.push(`  ${key(surface)}: StatusSlot<${JSON.stringify(surface)}>;`);
    out.interfaces.push("}", "");
    out.members.push("  ui: UiHandlers;");
    out.register.push(`  for (const surface of ${JSON.stringify(k.ui)} as const) ext.status(surface, withSurface(surface, own(handlers.ui, surface, "ui surface")));`);
    out.helpers.push(
      "/** A status provider whose item is shown on the surface asked for unless it names one. */",
      "function withSurface(surface: Surface, handler: StatusSlot): StatusHandler {",
      "  return async (params, ctx) => {",
      "    const item = await handler(params, ctx);",
      "    return item === null || item === undefined ? item : { surface, ...item };",
      "  };",
      "}",
      "",
    );
  }
  if (k.context) {
    out.imports.push("ContextSlot");
    out.members.push("  /** The context provider (`contributes.context = true`): entries octet adds to the prompt. */", "  context: ContextSlot;");
    out.register.push('  ext.context(own(handlers, "context", "context provider"));');
  }
  if (k.renderers.length > 0) {
    out.imports.push("RendererSlot");
    out.interfaces.push("/** One renderer per `contributes.tool_renderers` entry: segments describing a call of that tool. */", "export interface ToolRendererHandlers {");
    for (const name of k.renderers) out.interfaces.push(`  ${key(name)}: RendererSlot<${JSON.stringify(name)}>;`);
    out.interfaces.push("}", "");
    out.members.push("  tool_renderers: ToolRendererHandlers;");
    out.register.push(`  for (const name of ${JSON.stringify(k.renderers)} as const) ext.renderer(name, own(handlers.tool_renderers, name, "tool renderer"));`);
  }
  if (k.lifecycle) {
    out.imports.push("LifecycleSlots");
    out.members.push("  /** Lifecycle observers, each optional (octet sends only the events handled here). */", "  lifecycle?: LifecycleSlots;");
    out.register.push("  for (const [event, observer] of Object.entries(handlers.lifecycle ?? {})) if (observer) ext.onLifecycle(event, observer as never);");
  }
  return out;
}

/** API 0.3: the session_start/session_end pair, typed with its payloads and `Disposition` answer (hook/run). */
function sessionHookSlots(hooks: string[], out: KindSlotText): KindSlotText {
  if (hooks.length === 0) return out;
  out.imports.push("SessionHookHandler");
  out.interfaces.push("/** The session hook pair (`contributes.hooks`, API 0.3): the binding in, a disposition (or nothing: continue) out. */", "export interface HookHandlers {");
  for (const hook of hooks) out.interfaces.push(`  ${key(hook)}: SessionHookHandler<${JSON.stringify(hook)}>;`);
  out.interfaces.push("}", "");
  out.members.push("  hooks: HookHandlers;");
  out.register.push(`  for (const hook of ${JSON.stringify(hooks)} as const) ext.hook(hook, own(handlers.hooks, hook, "hook"));`);
  return out;
}

/** API 0.3: the model provider (`contributes.providers = true`) and the migration adapter (`[migration] adapter = true`). */
function v03Slots(m: AuthorManifest, out: KindSlotText): KindSlotText {
  if (m.contributes.providers === true) {
    out.imports.push("ProviderDeclaration", "ProviderHandlers", "ProviderStreamHandler");
    out.interfaces.push(
      "/** The model provider (`contributes.providers = true`): the declaration sent in providers/register and its handlers (docs/api-0.3.md \"Providers\"). */",
      "export interface ProviderSlot {",
      "  declaration: ProviderDeclaration;",
      "  handlers: ProviderHandlers & {",
      "    /** Serves provider/stream: yields the events of one stream in order; the runtime numbers and sends them. */",
      "    stream: ProviderStreamHandler;",
      "  };",
      "}",
      "",
    );
    out.members.push("  providers: ProviderSlot;");
    out.register.push("  ext.provider(handlers.providers.declaration, handlers.providers.handlers);");
  }
  if (m.migrationAdapter === true) {
    out.imports.push("MigrationAdapter");
    out.members.push("  /** The migration adapter (`[migration] adapter = true`): detect and import another agent's configuration. */", "  migration: MigrationAdapter;");
    out.register.push("  ext.migration(handlers.migration);");
  }
  return out;
}
