/**
 * A tiny deterministic "model": prints the reply to its prompt one token per
 * line, `LOCAL_MODEL_DELAY_MS` apart (default 20), then exits. Offline, no
 * weights: the reply is "You said: <prompt>" split into words.
 */
const prompt = process.argv[2] ?? "";
const delay = Number(process.env.LOCAL_MODEL_DELAY_MS ?? 20);
const tokens = `You said: ${prompt}`.split(/(?<= )/);
for (const token of tokens) {
  process.stdout.write(`${JSON.stringify(token)}\n`);
  await Bun.sleep(delay);
}
export {};
