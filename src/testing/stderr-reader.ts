/** An extension's stderr as the host reads it: lines, octet's structured-record rule, parsed records. */

type Obj = Record<string, unknown>;

const LEVELS = ["debug", "info", "warning", "error"];

/** Read `stderr` to its end, emitting each line (a last line without LF included). */
export async function readStderr(stderr: AsyncIterable<Uint8Array>, emit: (line: string) => void): Promise<void> {
  let partial = "";
  const decoder = new TextDecoder();
  for await (const chunk of stderr) {
    const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) emit(line);
  }
  if (partial !== "") emit(partial);
}

/** The violation for a non-empty line that is not a JSON object with `level` and `message` (octet 0.8.0 runtime contract). */
export function checkStderrLine(line: string): string | undefined {
  if (line.trim() === "") return undefined;
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    record = undefined;
  }
  const r = record as Obj | undefined;
  const ok = r !== undefined && typeof r === "object" && r !== null && !Array.isArray(r)
    && LEVELS.includes(r.level as string) && typeof r.message === "string";
  return ok ? undefined : `unstructured stderr line: ${line.slice(0, 200)}`;
}

/** The lines that parse as JSON. */
export function parseLogs(lines: readonly string[]): Obj[] {
  const out: Obj[] = [];
  for (const line of lines) {
    try {
      out.push(JSON.parse(line) as Obj);
    } catch {
      /* reported as a violation when strict */
    }
  }
  return out;
}
