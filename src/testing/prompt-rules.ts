/**
 * octet's rule for tool prompt metadata (`tool_prompt_metadata_v1`), kept
 * apart from the runtime's own check so that the test host catches a
 * runtime that gets it wrong: at most 16 guidelines, each text at most 1,024
 * UTF-8 bytes, no control character but tab and newline (`char::is_control`:
 * C0, DEL and C1), no lone surrogate.
 */
export function promptMetadataProblem(snippet: unknown, guidelines: unknown): string | undefined {
  const texts: unknown[] = [];
  if (snippet !== undefined && snippet !== null) texts.push(snippet);
  if (guidelines !== undefined) {
    if (!Array.isArray(guidelines)) return "prompt_guidelines must be an array of strings";
    if (guidelines.length > 16) return "at most 16 guidelines are allowed";
    texts.push(...guidelines);
  }
  for (const text of texts) {
    if (typeof text !== "string") return "prompt metadata texts must be strings";
    if (Buffer.byteLength(text) > 1024) return "each text must be at most 1024 UTF-8 bytes";
    for (const character of text) {
      const code = character.codePointAt(0)!;
      if ((code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f)) return "text contains a control character";
      if (code >= 0xd800 && code <= 0xdfff) return "text contains a lone surrogate";
    }
  }
  return undefined;
}
