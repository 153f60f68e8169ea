/**
 * How `shutdown` fits octet's waits (docs/protocol-0.2.md §1.8: 2 s for the reply, then 2 s
 * for the exit). The reply is written at most `SHUTDOWN_REPLY_MS` after the
 * request arrived, whatever the drain and the `onShutdown` handler do: the
 * drain ends in time to leave a registered handler its share, and the handler
 * is left behind after `SHUTDOWN_HANDLER_MS` (octet's TypeScript SDK: 1 s).
 */

/** The reply is written by then (ms after `shutdown` arrived); octet waits 2 s, the rest is margin. */
export const SHUTDOWN_REPLY_MS = 1_500;
/** The longest `onShutdown` may run before the reply is written without it. */
export const SHUTDOWN_HANDLER_MS = 1_000;
/** The part of the reply deadline a drain leaves to a registered handler. */
export const SHUTDOWN_HANDLER_SHARE_MS = 500;

/** `work`'s outcome, or `"timeout"` after `ms`; the work keeps running and a later rejection is ignored. */
export async function within<T>(work: Promise<T>, ms: number): Promise<{ value: T } | "timeout"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(resolve, Math.max(0, ms), "timeout")));
  try {
    return await Promise.race([work.then((value) => ({ value })), timeout]);
  } finally {
    clearTimeout(timer);
    work.catch(() => {});
  }
}
