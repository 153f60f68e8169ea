/**
 * Host-side decoding of one request line, in the order of
 * docs/native-host-protocol.md §5 (steps 2–8; step 1, the frame limit, is the frame reader's), with the
 * §9.1 `protocol_error` texts:
 *
 * 2. empty line (after trailing CR/LF were stripped) → ignored;
 * 3. strict JSON (duplicates at any depth, syntax, object-ness);
 * 4. unknown fields of the named command;
 * 5. typed decode (types, required fields, enum values, unknown command);
 * 6. request_id rule → reported under request_id `invalid`;
 * 7. protocol_version ≠ 1 → echoed request_id;
 * 8. for `run`: run_id / session_id rule → echoed request_id, no run_id.
 *
 * Every failure before step 7 is reported under request_id `invalid`.
 */
import { INVALID_REQUEST_ID, isValidId } from "./id-rules.ts";
import { invalidUtf8Message } from "./invalid-utf8.ts";
import { MAX_FRAME_BYTES } from "./limits.ts";
import { JsonObject, JsonSyntaxError, parseStrictJson, type JsonValue } from "./request-json.ts";
import { COMMANDS, type CommandName, type Request, type RunRequest } from "./decoded-requests.ts";
import { RUN_FIELDS, RUN_REQUIRED, emptyRunDraft } from "./run-fields.ts";
import { DecodeError, readBool, readString, readUnsigned, readVariant } from "./typed-values.ts";

type DecodeOutcome =
  | { kind: "ignore" }
  | { kind: "protocol_error"; requestId: string; data: Record<string, unknown> }
  | { kind: "request"; request: Request };

/** §9.1: an inbound line over the frame limit. */
export function oversizeRequestError(): Record<string, unknown> {
  return { error: "request exceeded the protocol frame limit", max_bytes: MAX_FRAME_BYTES };
}

/** §9.1: stdin ended inside a line. */
export function incompleteFrameError(): Record<string, unknown> {
  return { error: "incomplete protocol frame at EOF" };
}

const ENVELOPE_FIELDS = ["protocol_version", "request_id", "command"] as const;

const COMMAND_FIELDS: Readonly<Record<CommandName, readonly string[]>> = {
  hello: [],
  shutdown: [],
  models: ["offline"],
  run: Object.keys(RUN_FIELDS),
};

/** Strict, and a leading BOM is kept so that it reaches the parser (serde_json rejects it). */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function invalid(error: string): DecodeOutcome {
  return { kind: "protocol_error", requestId: INVALID_REQUEST_ID, data: { error } };
}

/**
 * Decode one line's content (its LF and trailing CR/LF bytes already
 * removed by the caller or not: trailing CR and LF are stripped here too).
 */
export function decodeRequestLine(bytes: Uint8Array): DecodeOutcome {
  let end = bytes.length;
  while (end > 0 && (bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d)) end--;
  if (end === 0) return { kind: "ignore" };

  const content = bytes.subarray(0, end);
  let text: string;
  try {
    text = utf8.decode(content);
  } catch {
    return invalid(`invalid request: ${invalidUtf8Message(content) ?? "invalid unicode code point"}`);
  }

  let parsed: JsonValue;
  try {
    parsed = parseStrictJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) return invalid(`invalid request: ${error.message}`);
    throw error;
  }
  if (!(parsed instanceof JsonObject)) return invalid("invalid request: request must be a JSON object");

  const unknown = findUnknownField(parsed);
  if (unknown !== undefined) return invalid(`invalid request: unknown request field ${JSON.stringify(unknown)}`);

  let request: Request;
  try {
    request = decodeTyped(parsed);
  } catch (error) {
    if (error instanceof DecodeError) return invalid(`invalid request: ${error.message}`);
    throw error;
  }

  if (!isValidId(request.requestId)) return invalid("request_id is invalid");

  if (request.protocolVersion !== 1) {
    return {
      kind: "protocol_error",
      requestId: request.requestId,
      data: { error: "unsupported protocol version", received: request.protocolVersion, supported: [1] },
    };
  }

  if (request.command === "run" && !runIdsAreValid(request)) {
    return { kind: "protocol_error", requestId: request.requestId, data: { error: "run_id or session_id is invalid" } };
  }
  return { kind: "request", request };
}

/** §5 step 4: skipped when `command` is missing or not a known command name. */
function findUnknownField(object: JsonObject): string | undefined {
  const command = object.get("command");
  const known = COMMANDS.find((c) => c === command);
  if (known === undefined) return undefined;
  const allowed = new Set<string>([...ENVELOPE_FIELDS, ...COMMAND_FIELDS[known]]);
  for (const [name] of object.entries) if (!allowed.has(name)) return name;
  return undefined;
}

/** §5 step 5, in serde's order: envelope members, missing envelope fields, the command tag, the command's members, its missing fields. */
function decodeTyped(object: JsonObject): Request {
  let protocolVersion: number | undefined;
  let requestId: string | undefined;
  for (const [name, value] of object.entries) {
    if (name === "protocol_version") protocolVersion = Number(readUnsigned(value, 16));
    else if (name === "request_id") requestId = readString(value);
  }
  if (protocolVersion === undefined) throw new DecodeError("missing field `protocol_version`");
  if (requestId === undefined) throw new DecodeError("missing field `request_id`");

  const tag = object.get("command");
  if (tag === undefined) throw new DecodeError("missing field `command`");
  const command = readVariant(tag, COMMANDS);
  const members = object.entries.filter(([name]) => !(ENVELOPE_FIELDS as readonly string[]).includes(name));

  switch (command) {
    case "hello":
    case "shutdown":
      return { command, protocolVersion, requestId };
    case "models": {
      let offline = false;
      for (const [, value] of members) offline = readBool(value);
      return { command, protocolVersion, requestId, offline };
    }
    case "run": {
      const draft = emptyRunDraft();
      for (const [name, value] of members) RUN_FIELDS[name]?.(value, draft);
      for (const name of RUN_REQUIRED) if (!object.has(name)) throw new DecodeError(`missing field \`${name}\``);
      const { runId, workspace, model, prompt } = draft;
      // Unreachable after the required-field check (a required null is a type error); narrows the types.
      if (runId === undefined || workspace === undefined || model === undefined || prompt === undefined) {
        throw new DecodeError("missing field `run_id`");
      }
      return { ...draft, command, protocolVersion, requestId, runId, workspace, model, prompt };
    }
  }
}

function runIdsAreValid(request: RunRequest): boolean {
  return isValidId(request.runId) && (request.sessionId === undefined || isValidId(request.sessionId));
}
