import type { JsonRecord } from "../../check.ts";
import { errorReply, type Responder } from "../responders.ts";
import { BUS, busFieldsViolation, busPayloadViolation, busTopic, migrationDetectViolation, migrationImportViolation } from "./service-rules.ts";

/** What the services need of the host: its notifications, a judged request, its diagnostics and responders. */
export interface ServicesWiring {
  owner: string;
  diagnostics: string[];
  notify(method: string, params: JsonRecord): void;
  /** Send a request; its result held to `rule` (a violation fails the process as octet would). */
  judged(method: string, params: JsonRecord, rule: (result: unknown) => string | undefined): Promise<unknown>;
  respond(method: string, responder: Responder): void;
  options: { sessions?: boolean; bus?: boolean };
}

/** The session and bus methods this host answers itself on API 0.3. */
export const SERVICE_METHODS_03 = ["session/create", "session/fork", "session/reload", "session/switch", "bus/declare", "bus/subscribe", "bus/unsubscribe", "bus/publish"] as const;

const SESSION_METHODS = ["session/create", "session/fork", "session/reload", "session/switch"];
const BUS_METHODS = ["bus/declare", "bus/event", "bus/lifecycle", "bus/publish", "bus/subscribe", "bus/unsubscribe"];

/** The offer with `session_lifecycle` and/or `event_bus` added, as octet offers them with a bound lifecycle service or a configured bus. */
export function offerServices(params: JsonRecord, options: { sessions?: boolean; bus?: boolean }): JsonRecord {
  const contract = params.contract as JsonRecord;
  const capabilities = contract.optional_capabilities as string[];
  const methods = contract.optional_methods as string[];
  if (options.sessions) capabilities.push("session_lifecycle"), methods.push(...SESSION_METHODS);
  if (options.bus) capabilities.push("event_bus"), methods.push(...BUS_METHODS);
  return params;
}

const invalid = (why: string) => errorReply(-32602, "invalid params", { reason: why });

/**
 * The test host's session lifecycle service (fresh ids) and a tiny
 * in-memory event bus for one extension (its own topics, plus topics of
 * simulated peers a test declares). Requests it cannot accept are answered
 * as octet answers them and noted in `diagnostics`.
 */
export class ServicesHost03 {
  /** Session ids handed out, in order; `activeSession` is the current one. */
  readonly sessions: string[] = [];
  activeSession = "test-session";
  /** Publications the extension made (topic, payload, sequence). */
  readonly published: { topic: string; payload: JsonRecord; sequence: number }[] = [];
  /** The binding id and revision granted last. */
  binding = { id: "", revision: 0 };
  private readonly topics = new Map<string, { owner: string; fields: JsonRecord[]; revision: number }>();
  private readonly subscribed = new Set<string>();
  private sequence = 0;
  private peerSequence = 0;

  private readonly owner: string;
  private readonly diagnostics: string[];
  private readonly notify: (method: string, params: JsonRecord) => void;

  constructor(private readonly wiring: ServicesWiring) {
    ({ owner: this.owner, diagnostics: this.diagnostics, notify: this.notify } = wiring);
    for (const method of SERVICE_METHODS_03) wiring.respond(method, this.responder(method));
  }

  /** Initialize params with the services `TestHostOptions` asked for added to the offer. */
  offer(params: JsonRecord): JsonRecord {
    return offerServices(params, this.wiring.options);
  }

  /** After the initialize reply: grant a binding when `event_bus` was selected (as octet binds its bus). */
  initialized(methods: ReadonlySet<string> | undefined): void {
    if (methods?.has("bus/lifecycle")) this.bind();
  }

  /** `migration/detect {source_root}`, the result held to octet's model and bounds. */
  async migrationDetect(sourceRoot: string): Promise<JsonRecord> {
    return (await this.wiring.judged("migration/detect", { source_root: sourceRoot }, migrationDetectViolation)) as JsonRecord;
  }

  /** `migration/import {source_root, config_paths}`, the result held to octet's model and bounds. */
  async migrationImport(sourceRoot: string, configPaths: string[]): Promise<JsonRecord> {
    return (await this.wiring.judged("migration/import", { config_paths: configPaths, source_root: sourceRoot }, migrationImportViolation)) as JsonRecord;
  }

  /** Send a `bus/lifecycle` notice (none: a fresh binding, as octet after a reload). */
  busLifecycle(params?: JsonRecord): void {
    if (params) this.notify("bus/lifecycle", params);
    else this.bind();
  }

  /** The responder for each of {@link SERVICE_METHODS_03}. */
  responder(method: string): Responder {
    return (params) => {
      const answer = method.startsWith("session/") ? this.session(method, params) : this.bus(method, params);
      if (answer && typeof answer === "object" && !("binding_id" in answer) && !("session_id" in answer)) this.diagnostics.push(`${method} refused: ${JSON.stringify(answer)}`);
      return answer;
    };
  }

  /** Grant a new binding (`bus/lifecycle {kind: "binding"}`): topics and subscriptions of the old one are gone. */
  bind(): string {
    this.binding = { id: `binding-${this.binding.revision + 1}`, revision: this.binding.revision + 1 };
    for (const [topic, t] of this.topics) if (t.owner === this.owner) this.topics.delete(topic);
    this.subscribed.clear();
    this.notify("bus/lifecycle", { binding_id: this.binding.id, binding_revision: this.binding.revision, kind: "binding" });
    return this.binding.id;
  }

  /** A simulated peer declares `topic` (`bus.<peer>.<name>`); announces it with `topic_available`. */
  declareBusTopic(topic: string, fields: JsonRecord[]): void {
    const checked = busTopic(topic);
    if ("violation" in checked) throw new Error(checked.violation);
    const t = { owner: checked.owner, fields, revision: (this.topics.get(topic)?.revision ?? 0) + 1 };
    this.topics.set(topic, t);
    this.notify("bus/lifecycle", { ...this.provenance(topic, t.revision), kind: "topic_available" });
  }

  /** Deliver `bus/event` for a peer topic the extension subscribed to; false when it is not subscribed. */
  publishBusEvent(topic: string, payload: JsonRecord): boolean {
    const t = this.topics.get(topic);
    if (!t || !this.subscribed.has(topic)) return false;
    const violation = busPayloadViolation(payload, t.fields);
    if (violation) throw new Error(`publishBusEvent(${topic}): ${violation}`);
    this.notify("bus/event", {
      binding_id: this.binding.id,
      payload,
      process_generation: 1,
      published_at_ms: Date.now(),
      publisher: t.owner,
      publisher_instance_id: `peer-${t.owner}`,
      sequence: ++this.peerSequence,
      topic,
    });
    return true;
  }

  private provenance(topic: string, revision: number): JsonRecord {
    const owner = this.topics.get(topic)?.owner ?? "";
    return { binding_id: this.binding.id, process_generation: 1, publisher_instance_id: `peer-${owner}`, topic, topic_revision: revision };
  }

  private session(method: string, params: JsonRecord): unknown {
    if (method === "session/switch") {
      if (Object.keys(params).join() !== "session_id" || typeof params.session_id !== "string" || params.session_id === "") return invalid("session/switch takes exactly {session_id}");
      if (params.session_id !== "test-session" && !this.sessions.includes(params.session_id)) return invalid(`no session ${params.session_id}`);
      this.activeSession = params.session_id;
      return { session_id: params.session_id };
    }
    if (Object.keys(params).length > 0) return invalid(`${method} takes {}`);
    const id = `session-${this.sessions.length + 1}`;
    this.sessions.push(id);
    this.activeSession = id;
    return { session_id: id };
  }

  private bus(method: string, params: JsonRecord): unknown {
    if (params.binding_id !== this.binding.id || this.binding.id === "") return errorReply(-32011, "extension capability mismatch", { reason: "stale_binding" });
    const checked = busTopic(params.topic);
    if ("violation" in checked) return invalid(checked.violation);
    const topic = params.topic as string;
    const ack = { binding_id: this.binding.id };
    if (method === "bus/declare") {
      if (checked.owner !== this.owner) return errorReply(-32011, "extension capability mismatch", { reason: "foreign_topic" });
      const violation = busFieldsViolation(params.fields);
      if (violation) return invalid(violation);
      if (this.topics.has(topic)) return invalid("topic_already_declared");
      if (this.topics.size >= BUS.topics) return errorReply(-32012, "extension resource exhausted", { reason: "declaration_limit" });
      this.topics.set(topic, { owner: this.owner, fields: params.fields as JsonRecord[], revision: 1 });
      return ack;
    }
    if (method === "bus/publish") {
      const t = this.topics.get(topic);
      if (!t) return invalid("unknown_topic");
      if (t.owner !== this.owner) return errorReply(-32011, "extension capability mismatch", { reason: "foreign_topic" });
      const violation = busPayloadViolation(params.payload, t.fields);
      if (violation) return invalid(violation);
      const sequence = ++this.sequence;
      this.published.push({ topic, payload: params.payload as JsonRecord, sequence });
      return { ...ack, published_at_ms: Date.now(), sequence };
    }
    if (method === "bus/unsubscribe") {
      this.subscribed.delete(topic);
      return ack;
    }
    if (!this.subscribed.has(topic) && this.subscribed.size >= BUS.subscriptions) return errorReply(-32012, "extension resource exhausted", { reason: "subscription_limit" });
    const t = this.topics.get(topic);
    if (!t) return { ...ack, state: "pending", topic_revision: 1 };
    this.subscribed.add(topic);
    return { ...ack, process_generation: 1, publisher_instance_id: `peer-${t.owner}`, state: "active", topic_revision: t.revision };
  }
}
