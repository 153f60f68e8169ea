import type { Logger } from "../../log.ts";
import { errorText } from "../../errors.ts";
import { type BusField, type BusFieldSpec, BUS_BOUNDS, checkIdentifier, checkPayload, checkTopic, fieldSpecs } from "./bus-rules.ts";
import { WireError } from "./canonical-errors.ts";
import type { CanonicalService, HostLink } from "./canonical-registry.ts";

export type { BusField } from "./bus-rules.ts";

/** One `bus/event` delivered to a subscription handler. */
export interface BusEvent {
  topic: string;
  publisher: string;
  publisherInstanceId: string;
  processGeneration: number;
  sequence: number;
  publishedAtMs: number;
  payload: Record<string, string | number | boolean>;
}

/** One `bus/lifecycle` notice: a new binding, or a topic that became available or unavailable. */
export type BusLifecycleNotice =
  | { kind: "binding"; bindingId: string; bindingRevision: number }
  | { kind: "topic_available" | "topic_unavailable"; bindingId: string; topic: string; topicRevision: number; publisherInstanceId: string; processGeneration: number };

export type BusEventHandler = (event: BusEvent) => void | Promise<void>;
export type BusLifecycleHandler = (notice: BusLifecycleNotice) => void | Promise<void>;

/** What `subscribe` got: `active` (a publisher exists) or `pending` (interest only, activated on availability). */
export type BusSubscription = "active" | "pending";

const METHODS = ["bus/declare", "bus/event", "bus/lifecycle", "bus/publish", "bus/subscribe", "bus/unsubscribe"] as const;

interface Waiter<T> {
  resolve(value: T): void;
  reject(error: Error): void;
}

/**
 * The event bus (`event_bus`): typed topics `bus.<extension>.<name>` this
 * extension declares and publishes, exact topics of others it subscribes to.
 * Selected when the author used `ext.bus` before `run()` and octet offers
 * `event_bus` with all six bus methods (octet does only with a configured
 * bus). Every request carries the binding octet grants in `bus/lifecycle`;
 * declarations and subscriptions wait for it and are made again on each new
 * binding (publications are never replayed). What the extension sends is
 * checked here first against the bus bounds and refused with one line.
 */
export class EventBus {
  private enabled = false;
  private frozen = false;
  private link: HostLink | undefined;
  private binding: { id: string; revision: number } | undefined;
  private stopped: string | undefined;
  /** Topics this extension declared (name → fields), in order. */
  private readonly declared = new Map<string, BusFieldSpec[]>();
  /** Declarations and subscriptions sent under the current binding (`declare:<name>`, `subscribe:<topic>`), so each goes once. */
  private readonly sent = new Map<string, Promise<unknown>>();
  /** Subscriptions wanted (topic → handler) and their state under the current binding. */
  private readonly wanted = new Map<string, BusEventHandler>();
  private readonly state = new Map<string, { kind: BusSubscription; publisher?: [string, number]; sequence: number }>();
  private readonly lifecycleHandlers: BusLifecycleHandler[] = [];
  private readonly bindingWaiters: Waiter<void>[] = [];

  constructor(
    private readonly log: Logger,
    /** The manifest name octet sent in initialize (`extension.name`): the owner of declared topics. */
    private readonly extensionName: () => string | undefined,
  ) {}

  /** Select `event_bus` when offered, without declaring or subscribing yet (call before `run()`). */
  enable(): this {
    if (this.frozen) throw new Error("ext.bus.enable() must be called before run()");
    this.enabled = true;
    return this;
  }

  /** The binding octet granted, once `bus/lifecycle` delivered it. */
  get bindingId(): string | undefined {
    return this.binding?.id;
  }

  /** Receive every `bus/lifecycle` notice (after the bus has applied it). */
  onLifecycle(handler: BusLifecycleHandler): this {
    if (typeof handler !== "function") throw new Error("ext.bus.onLifecycle(handler): handler must be a function");
    this.use();
    this.lifecycleHandlers.push(handler);
    return this;
  }

  /**
   * Declare topic `bus.<this extension>.<name>` with its scalar fields; resolves
   * with the full topic once octet acknowledged it (after the first binding).
   */
  async declare(name: string, fields: BusField[]): Promise<string> {
    const where = `ext.bus.declare(${JSON.stringify(name)})`;
    checkIdentifier(name, `${where}: the name`);
    const specs = fieldSpecs(fields, where);
    this.use();
    if (this.declared.has(name)) throw new WireError("invalid_params", `${where}: the topic is already declared`);
    if (this.declared.size >= BUS_BOUNDS.topics) throw new WireError("resource_exhausted", `${where}: ${BUS_BOUNDS.topics} topics are declared already`);
    this.declared.set(name, specs);
    await this.bound();
    await this.sendDeclare(name);
    return this.topicOf(name);
  }

  /** Publish `payload` on a topic this extension declared (`name` or the full topic); resolves with octet's sequence and time. */
  async publish(topic: string, payload: Record<string, string | number | boolean>): Promise<{ sequence: number; publishedAtMs: number }> {
    const where = `ext.bus.publish(${JSON.stringify(topic)})`;
    const binding = this.current(where);
    const name = topic.startsWith("bus.") && this.extensionName() !== undefined ? topic.slice(`bus.${this.extensionName()}.`.length) : topic;
    const fields = this.declared.get(name);
    if (!fields || (topic.startsWith("bus.") && this.topicOf(name) !== topic)) throw new WireError("invalid_params", `${where}: declare the topic with ext.bus.declare() before publishing on it (only this extension's topics)`);
    checkPayload(payload, fields, where);
    const full = this.topicOf(name);
    const result = (await this.link!.request("bus/publish", { binding_id: binding, payload, topic: full })) as { binding_id: string; sequence: number; published_at_ms: number };
    return { sequence: result.sequence, publishedAtMs: result.published_at_ms };
  }

  /** Subscribe to an exact topic `bus.<publisher>.<name>`; `handler` gets each `bus/event`. Resolves with the subscription state. */
  async subscribe(topic: string, handler: BusEventHandler): Promise<BusSubscription> {
    const where = `ext.bus.subscribe(${JSON.stringify(topic)})`;
    checkTopic(topic, where);
    if (typeof handler !== "function") throw new WireError("invalid_params", `${where}: handler must be a function`);
    if (!this.wanted.has(topic) && this.wanted.size >= BUS_BOUNDS.subscriptions) throw new WireError("resource_exhausted", `${where}: ${BUS_BOUNDS.subscriptions} subscriptions is the most a process may hold`);
    this.use();
    this.wanted.set(topic, handler);
    await this.bound();
    return this.sendSubscribe(topic);
  }

  /** Drop a subscription (no more events for it). */
  async unsubscribe(topic: string): Promise<void> {
    const where = `ext.bus.unsubscribe(${JSON.stringify(topic)})`;
    checkTopic(topic, where);
    if (!this.wanted.delete(topic)) return;
    const had = this.state.delete(topic);
    if (!had || !this.link) return;
    await this.link.request("bus/unsubscribe", { binding_id: this.current(where), topic });
  }

  /** The service the connection drives (internal). */
  service(): CanonicalService {
    return {
      selection: () => {
        this.frozen = true;
        return this.enabled ? { capabilities: ["event_bus"], methods: [...METHODS] } : undefined;
      },
      ready: (link) => {
        this.link = link;
      },
      notification: (method, params) => (method === "bus/lifecycle" ? this.lifecycle(params as Record<string, any>) : this.event(params as Record<string, any>)),
      stop: (reason) => {
        this.stopped = reason;
        for (const waiter of this.bindingWaiters.splice(0)) waiter.reject(new WireError("request_cancelled", `the event bus stopped (${reason})`, { reason }));
      },
    };
  }

  // ---- host → extension --------------------------------------------------------------

  private lifecycle(p: Record<string, any>): void {
    if (p.kind === "binding") {
      if (this.binding && p.binding_revision <= this.binding.revision) return;
      this.binding = { id: p.binding_id, revision: p.binding_revision };
      this.sent.clear();
      this.state.clear();
      for (const waiter of this.bindingWaiters.splice(0)) waiter.resolve();
      void this.rebind();
    } else if (p.binding_id === this.binding?.id && this.wanted.has(p.topic)) {
      const current = this.state.get(p.topic);
      if (p.kind === "topic_unavailable") this.state.set(p.topic, { kind: "pending", sequence: 0 });
      else if (current?.kind !== "active") void this.sendSubscribe(p.topic, true).catch((error) => this.log.warning("bus resubscribe failed", { topic: p.topic, error: errorText(error) }));
    }
    const notice: BusLifecycleNotice =
      p.kind === "binding"
        ? { kind: "binding", bindingId: p.binding_id, bindingRevision: p.binding_revision }
        : { kind: p.kind, bindingId: p.binding_id, topic: p.topic, topicRevision: p.topic_revision, publisherInstanceId: p.publisher_instance_id, processGeneration: p.process_generation };
    for (const handler of this.lifecycleHandlers) this.run(() => handler(notice), "bus lifecycle handler failed");
  }

  private event(p: Record<string, any>): void {
    const handler = this.wanted.get(p.topic);
    const state = this.state.get(p.topic);
    const drop = (why: string) => this.log.warning("bus event dropped", { topic: p.topic, why });
    if (p.binding_id !== this.binding?.id) return drop("stale binding");
    if (!handler || state?.kind !== "active") return drop("not subscribed");
    if (state.publisher && (state.publisher[0] !== p.publisher_instance_id || state.publisher[1] !== p.process_generation)) return drop("stale publisher");
    if (p.sequence <= state.sequence) return drop("sequence did not increase");
    const payload = p.payload;
    if (payload === null || typeof payload !== "object" || Array.isArray(payload) || Object.values(payload).some((v) => v === null || typeof v === "object")) return drop("payload is not scalar fields");
    state.sequence = p.sequence;
    const event: BusEvent = {
      topic: p.topic,
      publisher: p.publisher,
      publisherInstanceId: p.publisher_instance_id,
      processGeneration: p.process_generation,
      sequence: p.sequence,
      publishedAtMs: p.published_at_ms,
      payload,
    };
    this.run(() => handler(event), "bus event handler failed");
  }

  // ---- extension → host --------------------------------------------------------------

  private async rebind(): Promise<void> {
    const binding = this.binding?.id;
    try {
      for (const name of this.declared.keys()) if (binding === this.binding?.id) await this.sendDeclare(name);
      for (const topic of this.wanted.keys()) if (binding === this.binding?.id) await this.sendSubscribe(topic);
    } catch (error) {
      this.log.warning("bus rebind failed", { error: errorText(error) });
    }
  }

  private async sendDeclare(name: string): Promise<void> {
    const key = `declare:${name}`;
    const binding = this.current(`ext.bus.declare(${JSON.stringify(name)})`);
    if (!this.sent.has(key)) this.sent.set(key, this.link!.request("bus/declare", { binding_id: binding, fields: this.declared.get(name), topic: this.topicOf(name) }));
    await this.sent.get(key);
  }

  private async sendSubscribe(topic: string, again = false): Promise<BusSubscription> {
    const key = `subscribe:${topic}`;
    const binding = this.current(`ext.bus.subscribe(${JSON.stringify(topic)})`);
    if (again || !this.sent.has(key)) this.sent.set(key, this.link!.request("bus/subscribe", { binding_id: binding, topic }));
    const result = (await this.sent.get(key)) as { state: BusSubscription; publisher_instance_id?: string; process_generation?: number };
    if (binding === this.binding?.id && this.wanted.has(topic)) {
      const previous = this.state.get(topic)?.sequence ?? 0;
      this.state.set(topic, result.state === "active" ? { kind: "active", publisher: [result.publisher_instance_id!, result.process_generation!], sequence: previous } : { kind: "pending", sequence: 0 });
    }
    return result.state;
  }

  /** Resolves once a binding exists (declarations and subscriptions made before it wait here). */
  private bound(): Promise<void> {
    if (this.binding) return Promise.resolve();
    if (this.stopped !== undefined) return Promise.reject(new WireError("request_cancelled", `the event bus stopped (${this.stopped})`, { reason: this.stopped }));
    return new Promise((resolve, reject) => this.bindingWaiters.push({ resolve, reject }));
  }

  /** The current binding id for a request; refuses when the bus is not selected or not bound. */
  private current(where: string): string {
    if (this.stopped !== undefined) throw new WireError("request_cancelled", `${where}: the event bus stopped (${this.stopped})`, { reason: this.stopped });
    if (!this.link || !this.link.methods.has("bus/lifecycle")) throw new WireError("unknown_method", `${where}: octet did not select event_bus (it offers it only with a configured bus)`, { method: "bus/declare" });
    if (!this.binding) throw new WireError("capability_mismatch", `${where}: the bus is unbound (no bus/lifecycle binding from octet yet)`);
    return this.binding.id;
  }

  /** `bus.<extension name>.<name>`; the extension name must be a bus identifier. */
  private topicOf(name: string): string {
    const owner = checkIdentifier(this.extensionName(), "the extension name (initialize extension.name), the owner of its bus topics,");
    const topic = `bus.${owner}.${name}`;
    checkTopic(topic, `topic ${topic}`);
    return topic;
  }

  private use(): void {
    if (!this.frozen) this.enabled = true;
  }

  private run(fn: () => unknown, what: string): void {
    Promise.resolve()
      .then(fn)
      .catch((error) => this.log.error(what, { error: errorText(error) }));
  }
}
