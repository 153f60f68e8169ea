/**
 * Validation of a decoded `run` up to its admission (docs/native-host-protocol.md §6.3,
 * "Semantic validation order"): the request-only checks, then the
 * configuration (workspace, working directory, session directory, tools,
 * reasoning), model resolution, and the session file being chosen and
 * opened. The first failure wins and becomes a `final_result` with status
 * `error` at seq 1 (§9.2); success yields the {@link RunPlan} the run is
 * served from.
 */
import path from "node:path";
import type { CatalogModel } from "./catalog.ts";
import { canonical, canonicalWithMissingTail, hasParentComponent, isDirectory, isInside } from "./paths.ts";
import { reasoningError, registeredTools } from "./policy.ts";
import type { RunRequest } from "./decoded-requests.ts";
import { resolveRoute, type ResolvedRoute } from "./route.ts";
import { checkRunRequest } from "./run-checks.ts";
import { chooseSessionFile, type SessionChoice } from "./session-select.ts";
import { openSession } from "./session-store.ts";

export interface RunPlan {
  request: RunRequest;
  /** Canonical workspace. */
  workspace: string;
  session: SessionChoice;
  registeredTools: string[];
  route: ResolvedRoute;
}

type RunValidation = { ok: true; plan: RunPlan } | { ok: false; error: string };

function fail(error: string): RunValidation {
  return { ok: false, error };
}

export function validateRun(request: RunRequest, catalog: readonly CatalogModel[]): RunValidation {
  const checked = checkRunRequest(request);
  if ("error" in checked) return fail(checked.error);

  const workspace = canonical(request.workspace);
  if (workspace === undefined || !isDirectory(workspace)) return fail(`workspace ${request.workspace} is unavailable`);
  if (request.workingDir !== undefined) {
    const dir = canonical(request.workingDir);
    if (dir === undefined || !isDirectory(dir)) return fail("working directory is unavailable");
    if (!isInside(dir, workspace)) return fail("working directory must stay inside the workspace");
  }
  const sessionDirGiven = request.sessionDir ?? path.join(".octet", "sessions");
  if (hasParentComponent(sessionDirGiven)) return fail("session directory must not contain '.' or '..' components");
  const sessionDir = canonicalWithMissingTail(path.isAbsolute(sessionDirGiven) ? sessionDirGiven : path.join(workspace, sessionDirGiven));
  if (!request.allowExternalPaths && !isInside(sessionDir, workspace)) {
    return fail("session directory must stay inside the workspace unless allow_external_paths is enabled");
  }
  const tools = registeredTools(request.tools);
  if ("error" in tools) return fail(tools.error);
  const reasoning = reasoningError(request.reasoning);
  if (reasoning !== undefined) return fail(reasoning);

  const modalities = new Set<string>(request.inputModalities);
  if (request.vision) modalities.add("image");
  const route = resolveRoute(request, checked.inline, modalities, catalog);
  if ("error" in route) return fail(route.error);
  const chosen = chooseSessionFile(request, sessionDir);
  if ("error" in chosen) return fail(chosen.error);
  const openError = openSession(chosen.choice, request.history);
  if (openError !== undefined) return fail(openError);

  return { ok: true, plan: { request, workspace, session: chosen.choice, registeredTools: tools.tools, route } };
}
