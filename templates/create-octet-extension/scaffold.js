// The files of a new octet extension project. Plain JavaScript so that the
// initializer runs under Node (`npm create octet-extension`) as well as Bun
// (`bun create octet-extension`).
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";

const OWN = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));

/** Versions the scaffold depends on: the kit's own version and the toolchain it is tested with. */
export const VERSIONS = {
  kit: `^${OWN.version}`,
  bun: OWN.octet.bun,
  typescript: OWN.octet.typescript,
};

/**
 * @typedef {object} ScaffoldOptions
 * @property {"registry" | "link"} [source] where octet-extension comes from: the registry (default) or `bun link`
 * @property {boolean} [withBun] add Bun as a dev dependency (for authors who have only Node and npm)
 */

/**
 * What a new extension project holds (keys are paths relative to it).
 * @param {string} name
 * @param {ScaffoldOptions} [options]
 * @returns {Record<string, string>}
 */
export function files(name, options = {}) {
  const link = options.source === "link";
  const devDependencies = {
    "@types/bun": VERSIONS.bun,
    ...(options.withBun ? { bun: VERSIONS.bun } : {}),
    "octet-extension-tools": link ? "link:octet-extension-tools" : VERSIONS.kit,
    typescript: VERSIONS.typescript,
  };
  const pkg = {
    name,
    version: "0.1.0",
    private: true,
    type: "module",
    // Scripts run with node_modules/.bin on PATH, the only place `octet-extension` is.
    scripts: {
      gen: "octet-extension gen",
      check: "octet-extension check",
      typecheck: "tsc --noEmit -p .",
      test: "octet-extension check && bun test",
      build: "octet-extension build",
      call: "octet-extension call",
      inspect: "octet-extension inspect",
      dev: "octet-extension dev",
      conformance: "octet-extension conformance",
      postinstall: "octet-extension gen",
    },
    dependencies: { "octet-extension": link ? "link:octet-extension" : VERSIONS.kit },
    devDependencies,
  };
  const run = options.withBun ? "npm run" : "bun run";
  return {
    "manifest.toml": `#:schema ./node_modules/octet-extension-tools/manifest.schema.json
# The manifest you edit; \`${run} gen\` writes extension.toml (what octet reads) from it.
# The line above lets editors with Taplo (Even Better TOML) complete keys and flag mistakes.
name = "${name}"
version = "0.1.0"
# octet's current extension API; "0.2" (the same wire without the 0.4 features) also works.
api_version = "0.4"
description = "An octet extension"

[tools.hello]
description = "Greet someone by name"
parameters = { type = "object", properties = { name = { type = "string", description = "Who to greet" } }, required = ["name"] }

[contributes]
notifications = true
`,
    "src/extension.ts": `import { Extension } from "octet-extension";
import { type Handlers, register } from "./extension.gen.ts";

/** One handler per tool and command declared in manifest.toml (\`${run} gen\` adds stubs). */
export const handlers = {
  tools: {
    hello: (args) => \`Hello, \${args.name}!\`,
  },
  commands: {},
} satisfies Handlers;

await register(new Extension(), handlers).run();
`,
    "test/extension.test.ts": `import { expect, test } from "bun:test";
import { TestHost } from "octet-extension/testing";

// Starts the extension as octet does (staged entry point, cleared environment) and calls it.
test("hello greets by name", async () => {
  const host = await TestHost.start(new URL("..", import.meta.url).pathname);
  await host.initialize();
  expect(await host.callTool("hello", { name: "Ada" })).toEqual({ content: [{ type: "text", text: "Hello, Ada!" }], is_error: false, metadata: {} });
  expect(await host.shutdown()).toBe(0);
});

// Arguments that do not match the schema in manifest.toml never reach the handler.
test("arguments are checked against the schema", async () => {
  const host = await TestHost.start(new URL("..", import.meta.url).pathname);
  await host.initialize();
  const result = await host.callTool("hello", { name: 42 });
  expect(result).toMatchObject({ is_error: true });
  expect(JSON.stringify(result)).toContain("/name must be string");
  expect(await host.shutdown()).toBe(0);
});
`,
    "test/setup.ts": `import { afterAll } from "bun:test";
import { removeTemporaryDirectories } from "octet-extension/testing";

// bun test ends without the process exit event: remove the test host's temporary workspaces here.
afterAll(removeTemporaryDirectories);
`,
    "bunfig.toml": `# The dev entry point (./extension) also runs Bun with this file: keep test-only settings under [test].
[test]
preload = ["./test/setup.ts"]
`,
    "package.json": `${JSON.stringify(pkg, null, 2)}\n`,
    "tsconfig.json": `${JSON.stringify(
      {
        compilerOptions: {
          target: "ESNext",
          module: "Preserve",
          moduleResolution: "bundler",
          lib: ["ESNext"],
          types: ["bun"],
          strict: true,
          noEmit: true,
          allowImportingTsExtensions: true,
          skipLibCheck: true,
        },
        include: ["src", "test"],
      },
      null,
      2,
    )}\n`,
    ".gitignore": "node_modules/\ndist/\n",
    "README.md": `# ${name}

An octet extension written with \`octet-extension\`.

    ${options.withBun ? "npm install  " : "bun install  "}      # also runs \`${run} gen\`
    ${run} typecheck   # TypeScript checks your handlers against manifest.toml
    ${options.withBun ? "npm test     " : "bun run test "}      # check, then start the extension as octet would and call it
    ${run} call -- hello '{"name":"Ada"}'   # one call; prints the answer
    ${run} build       # dist/${name}/: copy it into ~/.octet/extensions/

Declare tools and commands in \`manifest.toml\`, run \`${run} gen\`, and implement the stub it adds
to \`src/extension.ts\`. \`${run} check\` fails when generated files are stale (use it in CI), and
the test script runs it first; \`${run} build\` refuses to ship while they are stale or the project
does not type-check. \`${run} call -- TOOL JSON\` takes \`--scratch DIR\` (the extension's scratch
directory, \`ctx.scratch\`, kept across calls), \`--quiet\` (the answer alone) and \`--frames\` (the
conversation too); \`${run} inspect\`, \`${run} dev\` and \`${run} conformance\` are the other tools
(the \`--\` keeps npm from reading their options).
`,
  };
}

const NAME = /^[a-z][a-z0-9-]{0,63}$/;

/**
 * Create the project directory `target`; its basename is the extension name
 * (octet loads an extension only from a directory named like it).
 * @param {string} target
 * @param {ScaffoldOptions} [options]
 * @returns {string} the project directory
 */
export function scaffold(target, options = {}) {
  const dir = resolve(target);
  const name = basename(dir);
  if (!NAME.test(name)) throw new Error(`"${name}" cannot name an octet extension: use 1-64 of a-z, 0-9 and '-', starting with a letter`);
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new Error(`${dir} exists and is not empty: choose a new name or empty it`);
  for (const [path, text] of Object.entries(files(name, options))) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}
