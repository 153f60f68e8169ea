/**
 * Typed values and diagnostics cases (profile "octet.typed-values.v1"), our
 * own data written from the facts octet's conformance material states: one
 * closed record type with valid and invalid values, and valid and invalid
 * diagnostics. docs/api-0.4.md "Typed diagnostics" has the rules.
 */

/** A closed record: name, enabled, samples (numbers), optional nullable note. */
export const RECORD_SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string" },
    enabled: { type: "boolean" },
    samples: { type: "array", items: { type: "number" } },
    note: { anyOf: [{ type: "string" }, { type: "null" }], default: null },
  },
  required: ["name", "enabled", "samples"],
  additionalProperties: false,
} as const;

export const VALID_RECORDS: [string, unknown][] = [
  ["astral and non-Latin name, note left out", { name: "σ🚀", enabled: true, samples: [0.25, -3.5] }],
  ["empty name and list, explicit null note", { name: "", enabled: false, samples: [], note: null }],
  ["an integer sample is a number; a note", { name: "typed", enabled: true, samples: [7], note: "kept" }],
];

export const INVALID_RECORDS: [string, unknown][] = [
  ["name missing", { enabled: true, samples: [] }],
  ["name not a string", { name: 2, enabled: true, samples: [] }],
  ["a number where a boolean is required", { name: "x", enabled: 0, samples: [] }],
  ["a boolean in the number list", { name: "x", enabled: true, samples: [false] }],
  ["note neither string nor null", { name: "x", enabled: true, samples: [], note: 3 }],
  ["a key the closed record does not have", { name: "x", enabled: true, samples: [], surplus: "no" }],
];

const REVISION = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";

export const VALID_DIAGNOSTICS: [string, unknown][] = [
  ["the minimal record", { severity: "error", code: "parser.unexpected_token", message: "Expected an expression." }],
  [
    "a workspace location, empty related and fixes, a blob attachment",
    {
      severity: "warning",
      code: "lint.unused-variable",
      message: "Variable is never read.",
      primary: { source: { kind: "workspace", path: "src/main.rs", revision: REVISION }, span: { start_byte: 40, end_byte: 47 } },
      related: [],
      fixes: [],
      attachments: [{ kind: "blob", id: "b_trace-1", label: "Full trace" }],
    },
  ],
  [
    "a fix with one workspace edit and a related location",
    {
      severity: "hint",
      code: "style.Rename",
      message: "Prefer snake_case.\tSee the guide.",
      related: [{ message: "declared here", location: { source: { kind: "artifact", id: "a1" }, span: { start_byte: 0, end_byte: 0 } } }],
      fixes: [{ title: "Rename", edits: [{ location: { source: { kind: "workspace", path: "lib/a.py", revision: REVISION }, span: { start_byte: 3, end_byte: 9 } }, replacement: "" }] }],
    },
  ],
];

export const INVALID_DIAGNOSTICS: [string, unknown, string][] = [
  ["an unknown severity", { severity: "critical", code: "x.y", message: "m" }, "severity must be one of"],
  ["an empty code", { severity: "error", code: "", message: "m" }, "code must match"],
  ["an escape sequence in the message", { severity: "error", code: "x.y", message: "red\u001b[31m" }, "message may contain no control characters"],
  ["a key the closed record does not have", { severity: "error", code: "x.y", message: "m", extra: 1 }, 'unknown key "extra"'],
  [
    "a path leaving the workspace",
    { severity: "error", code: "x.y", message: "m", primary: { source: { kind: "workspace", path: "../etc/passwd", revision: REVISION }, span: { start_byte: 1, end_byte: 2 } } },
    "path must be normalised",
  ],
  [
    "a span whose start is after its end",
    { severity: "error", code: "x.y", message: "m", primary: { source: { kind: "workspace", path: "a.txt", revision: REVISION }, span: { start_byte: 9, end_byte: 2 } } },
    "span start_byte must not exceed end_byte",
  ],
  ["primary given as null", { severity: "error", code: "x.y", message: "m", primary: null }, "primary must be omitted, not null"],
  ["a revision that is not 64 lowercase hex", { severity: "info", code: "x.y", message: "m", primary: { source: { kind: "workspace", path: "a", revision: "ABC" }, span: { start_byte: 0, end_byte: 1 } } }, "revision must be"],
  ["a fix with no edits", { severity: "info", code: "x.y", message: "m", fixes: [{ title: "t", edits: [] }] }, "a fix needs 1 to 16 edits"],
  [
    "a fix editing a blob",
    { severity: "info", code: "x.y", message: "m", fixes: [{ title: "t", edits: [{ location: { source: { kind: "blob", id: "b" }, span: { start_byte: 0, end_byte: 1 } }, replacement: "x" }] }] },
    "a fix may only edit workspace files",
  ],
];
