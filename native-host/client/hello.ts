/**
 * Validation of the `hello` reply (docs/native-host-protocol.md §6.1, §15.9): the client
 * drives a host only when it speaks protocol 1, states a usable frame limit
 * and concurrency, lists the commands, and can be cancelled by process group.
 */
import { HandshakeError } from "./errors.ts";
import { type Command, DEFAULT_MAX_FRAME_BYTES } from "./commands.ts";

export interface HelloInfo {
  /** The host's octet version, e.g. "0.8.0". */
  sdkVersion: string;
  protocolVersion: 1;
  /** Outbound ceiling: the smaller of the host's limit and 1 MiB. */
  maxFrameBytes: number;
  maxConcurrentRuns: number;
  commands: Command[];
  /** Every feature flag the host reported (unknown ones included). */
  features: Record<string, unknown>;
}

const COMMANDS: readonly string[] = ["hello", "models", "run", "shutdown"];

/** The host's hello `data` as {@link HelloInfo}; throws {@link HandshakeError} for a host this client cannot drive. */
export function validateHello(data: Record<string, unknown>): HelloInfo {
  const fail = (why: string): never => {
    throw new HandshakeError(`octet-host handshake failed: ${why}`);
  };
  if (data.protocol_version !== 1) fail(`hello reports protocol_version ${JSON.stringify(data.protocol_version)}; this client speaks protocol 1`);
  if (typeof data.sdk_version !== "string" || data.sdk_version === "") fail("hello.sdk_version is missing");
  const frame = data.max_frame_bytes;
  if (!Number.isSafeInteger(frame) || (frame as number) <= 0) fail(`hello.max_frame_bytes must be a positive integer (got ${JSON.stringify(frame)})`);
  const runs = data.max_concurrent_runs;
  if (!Number.isSafeInteger(runs) || (runs as number) < 1) fail(`hello.max_concurrent_runs must be a positive integer (got ${JSON.stringify(runs)})`);
  const commands = data.commands;
  if (!Array.isArray(commands) || !commands.every((c) => typeof c === "string")) fail("hello.commands must be an array of strings");
  if (!(commands as string[]).includes("hello")) fail("hello.commands does not list hello");
  const features = data.features;
  if (typeof features !== "object" || features === null || Array.isArray(features)) fail("hello.features must be an object");
  const flags = features as Record<string, unknown>;
  if (flags.process_group_abort !== true) fail("the host does not report features.process_group_abort: true, so a run could not be cancelled safely");
  if (flags.in_band_abort !== false) fail("the host reports features.in_band_abort other than false; this client cancels by process group only");
  return {
    sdkVersion: data.sdk_version as string,
    protocolVersion: 1,
    maxFrameBytes: Math.min(frame as number, DEFAULT_MAX_FRAME_BYTES),
    maxConcurrentRuns: runs as number,
    commands: (commands as string[]).filter((c): c is Command => COMMANDS.includes(c)),
    features: flags,
  };
}
