import { fail, isNonBlankString, object, portableInteger, required } from "../../check.ts";
import { scanText } from "./fields.ts";
import { MAX_SESSION_ID_BYTES } from "./limits.ts";
import type { ResourceOwnerTriple } from "./snapshot-types.ts";

/** Check a `resource_owner` (docs/protocol-0.2.md §6.2) and return a copy holding exactly the triple. */
export function checkResourceOwner(owner: unknown): ResourceOwnerTriple {
  const path = "resource_owner";
  const keys = ["session_id", "extension_instance_id", "process_generation"];
  const o = object(owner, path, keys);
  const sessionId = required(o, "session_id", path);
  if (!isNonBlankString(sessionId)) fail(`${path}.session_id`, "must be a non-blank string");
  if (scanText(sessionId, `${path}.session_id`, [], false) > MAX_SESSION_ID_BYTES) {
    fail(`${path}.session_id`, `exceeds ${MAX_SESSION_ID_BYTES} UTF-8 bytes`);
  }
  const instance = required(o, "extension_instance_id", path);
  if (!isNonBlankString(instance)) fail(`${path}.extension_instance_id`, "must be a non-blank string");
  const generation = portableInteger(required(o, "process_generation", path), `${path}.process_generation`, 1);
  return { session_id: sessionId, extension_instance_id: instance, process_generation: generation };
}
