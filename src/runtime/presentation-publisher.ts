import { negotiatesFeatures } from "../protocol.ts";
import { wireId } from "../wire/ids.ts";
import { checkResourceOwner, checkSnapshot, type PresentationSnapshot } from "./presentation.ts";
import { apiRefusal, notDeclared } from "./refusals.ts";
import { currentScope } from "./scope.ts";
import type { ServiceHost } from "./services.ts";
import type { JsonObject, ResourceOwner } from "./types.ts";

/**
 * `presentation/update` (API 0.2, spec §4.13, §8.12): checks a snapshot with
 * presentation.ts's rules, keeps revisions strictly increasing for the
 * process, and ties the snapshot to the calling handler's request while it is
 * unanswered (else it is process-scoped, or owned by a `resourceOwner`).
 */
export class PresentationPublisher {
  private revision = -1;

  constructor(
    private readonly host: ServiceHost,
    /** Commands registered locally, when the manifest does not list them. */
    private readonly registeredCommands: () => string[],
  ) {}

  async publish(snapshot: PresentationSnapshot, options: { resourceOwner?: ResourceOwner } = {}): Promise<void> {
    if (!negotiatesFeatures(this.host.api)) throw apiRefusal("ext.publishPresentation()", "0.2 or 0.4", this.host.api);
    const live = this.host.initialized();
    const contributes = live.session.contributes;
    if (contributes.presentation !== true) throw notDeclared("ext.publishPresentation()", "presentation");
    const commands = Array.isArray(contributes.commands) ? (contributes.commands as string[]) : this.registeredCommands();
    checkSnapshot(snapshot, commands);
    const params: JsonObject = { snapshot };
    if (options.resourceOwner !== undefined) params.resource_owner = checkResourceOwner(options.resourceOwner);
    if (snapshot.revision <= this.revision) {
      throw new Error(`presentation revision ${snapshot.revision} must be above the last published one (${this.revision})`);
    }
    if (options.resourceOwner === undefined) {
      // Inside a handler the request is the parent; once it has settled (a timer the
      // handler left behind), the snapshot is process-scoped, as outside any handler.
      const parent = live.connection.activeParent(currentScope());
      if (parent !== undefined) params.parent_request_id = wireId(parent);
    }
    this.revision = snapshot.revision;
    await live.hostRequests.notify("presentation/update", params);
  }
}
