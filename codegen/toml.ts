import { AuthorManifestError } from "./errors.ts";

/**
 * Parse a TOML document with Bun's parser. Its errors carry no position, so
 * on failure the text is parsed again with smol-toml for the line and column.
 */
export function parseToml(text: string, file: string): Record<string, unknown> {
  try {
    return Bun.TOML.parse(text) as Record<string, unknown>;
  } catch (error) {
    const message = (error as Error).message.replace(/^TOML Parse error:\s*/, "");
    try {
      // Loaded only here: valid manifests never pay for a second parser.
      (require("smol-toml") as typeof import("smol-toml")).parse(text);
    } catch (located) {
      const { line, column } = located as { line?: number; column?: number };
      if (typeof line === "number" && typeof column === "number") {
        throw new AuthorManifestError(file, "(syntax)", `invalid TOML: ${message}`, "fix the TOML syntax at that line and column", { line, column });
      }
    }
    throw new AuthorManifestError(file, "(syntax)", `invalid TOML: ${message}`, "fix the TOML syntax");
  }
}
