import { WireError } from "./canonical-errors.ts";
import type { CanonicalService, HostLink } from "./canonical-registry.ts";

const METHODS = ["session/create", "session/fork", "session/reload", "session/switch"] as const;

/**
 * Session lifecycle (`session_lifecycle`): ask octet to create, fork, reload
 * or switch its session. Selected when the author called `enable()` before
 * `run()` and octet offers the capability with all four methods (octet offers
 * it only with a bound lifecycle service). Each call resolves with the
 * host's `session_id`; a host refusal rejects with its `RpcError`.
 */
export class SessionLifecycle {
  private enabled = false;
  private frozen = false;
  private link: HostLink | undefined;
  private stopped: string | undefined;

  /** Select `session_lifecycle` when octet offers it (call before `run()`). */
  enable(): this {
    if (this.frozen) throw new Error("ext.sessions.enable() must be called before run()");
    this.enabled = true;
    return this;
  }

  /** Whether octet selected the service with this extension (after initialize). */
  get available(): boolean {
    return this.link?.methods.has("session/create") === true;
  }

  /** `session/create {}` → the new session's id. */
  create(): Promise<string> {
    return this.call("session/create", {});
  }

  /** `session/fork {}` → the forked session's id. */
  fork(): Promise<string> {
    return this.call("session/fork", {});
  }

  /** `session/reload {}` → the reloaded session's id. */
  reload(): Promise<string> {
    return this.call("session/reload", {});
  }

  /** `session/switch {session_id}` → the id of the session now active. */
  switch(sessionId: string): Promise<string> {
    if (typeof sessionId !== "string" || sessionId === "") return Promise.reject(new WireError("invalid_params", "ext.sessions.switch(id): id must be a non-empty session id string"));
    return this.call("session/switch", { session_id: sessionId });
  }

  /** The service the connection drives (internal). */
  service(): CanonicalService {
    return {
      selection: () => {
        this.frozen = true;
        return this.enabled ? { capabilities: ["session_lifecycle"], methods: [...METHODS] } : undefined;
      },
      ready: (link) => {
        this.link = link;
      },
      stop: (reason) => {
        this.stopped = reason;
      },
    };
  }

  private async call(method: (typeof METHODS)[number], params: Record<string, unknown>): Promise<string> {
    const what = `ext.sessions.${method.slice("session/".length)}()`;
    if (this.stopped !== undefined) throw new WireError("request_cancelled", `${what}: the connection ended (${this.stopped})`, { reason: this.stopped });
    if (!this.enabled) throw new WireError("unknown_method", `${what}: call ext.sessions.enable() before run() to select session_lifecycle`, { method });
    if (!this.link?.methods.has(method)) {
      throw new WireError("unknown_method", `${what}: session_lifecycle is not selected: octet did not offer it (it does only with a bound lifecycle service), or initialize has not happened yet`, { method });
    }
    const result = (await this.link.request(method, params)) as { session_id: string };
    return result.session_id;
  }
}
