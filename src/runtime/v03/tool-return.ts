/**
 * What an API 0.3 tool handler returns (`tool-result.ts` writes it as the
 * wire's `ToolCallResult`): a string is one text part; an object gives text
 * parts, `is_error`, `metadata` (absent → `null`) and `structured_content`.
 * No `null` and no `diagnostics`: those are answered `-32603` on 0.3.
 */
export interface ToolResult03 {
  content?: string | { type: "text"; text: string }[];
  is_error?: boolean;
  metadata?: unknown;
  structured_content?: unknown;
}

/** The return type of the tool stubs gen writes for API 0.3. */
export type ToolReturn03 = string | ToolResult03;
