/**
 * Manifests that gen and `manifest.schema.json` must judge alike
 * (manifest-schema.test.ts): good ones, bad ones (each with the key gen's
 * error names), and the cases only gen can judge (docs/manifest.md,
 * "Checked by gen only").
 */
import { WEATHER } from "./helpers.ts";

/**
 * A manifest gen must refuse at `key` (the key its one-line error names); the
 * schema must refuse it within the same top-level table, or at `schemaAt`.
 */
export type Bad = [label: string, toml: string, key: string, schemaAt?: string];

const HEAD = (api: string) => `name = "corpus"\nversion = "0.1.0"\napi_version = "${api}"\n`;
/** WEATHER without its tool, for a manifest that writes `tools` another way. */
const NO_TOOLS = WEATHER.slice(0, WEATHER.indexOf("[tools.")) + WEATHER.slice(WEATHER.indexOf("[commands."));
const COMMAND = WEATHER.slice(WEATHER.indexOf("[commands."), WEATHER.indexOf("[contributes]"));
const at = (api: string, text = WEATHER) => text.replace('api_version = "0.2"', `api_version = "${api}"`);
/** WEATHER (API 0.2) with `extra` appended. */
const plus = (extra: string, api = "0.2") => `${at(api)}\n${extra}\n`;
const tool = (body: string, api = "0.2") => plus(`[tools.hello]\n${body}`, api);
const command = (body: string) => plus(`[commands.hello]\n${body}`);
const flag = (body: string, api = "0.4") => plus(`[flags.verbose]\n${body}`, api);
const shortcut = (body: string, api = "0.4") => plus(`[shortcuts.open]\n${body}`, api);
const contributes = (body: string, api = "0.2") => at(api).replace("[contributes]\n", `[contributes]\n${body}\n`);
const runtime = (body: string, api = "0.2") => plus(`[runtime]\n${body}`, api);
const source = (body: string) => plus(`[source]\n${body}`);
const many = (table: string, count: number, body: (i: number) => string) => Array.from({ length: count }, (_, i) => `[${table}.n${i}]\n${body(i)}\n`).join("\n");
/** 65 distinct keys octet binds (ctrl+letter, ctrl+shift+letter, super+letter; octet's own keys left out). */
const KEYS = [..."abefghijklmnpqrtuvwxyz"].map((c) => `ctrl+${c}`).concat([..."bdefghijklmnopqrstuvwxyz"].map((c) => `ctrl+shift+${c}`), [..."abcdefghijklmnopqrstuvwxyz"].map((c) => `super+${c}`));

export const DEPLOY = `${HEAD("0.4")}
[commands.deploy]
description = "Deploy"

[flags.dry-run]
type = "boolean"
default = false
description = "Print what would change"

[flags.region]
type = "string"
default = "eu"

[flags.retries]
type = "integer"
default = -2

[shortcuts.open_panel]
key = "ctrl+shift+p"
description = "Open the deploy panel"

[tools.plan]
description = "Plan a deploy"

[contributes]
menu = true
`;

export const GOOD: [string, string][] = [
  ["WEATHER on 0.1", at("0.1")],
  ["WEATHER on 0.2", WEATHER],
  ["WEATHER on 0.4", at("0.4")],
  ["WEATHER's tool on 0.3", at("0.3", NO_TOOLS).replace(COMMAND, "").replace("notifications = true\n", "") + '\n[tools.get_forecast]\ndescription = "Forecast"\n'],
  ["0.3: tools, flags, the session pair, providers, runtime, capabilities", `${HEAD("0.3")}\n[tools.t]\ndescription = "T"\noutput_schema = { type = "object" }\n\n[flags.depth]\ntype = "integer"\ndefault = 3\n\n[capabilities]\nenvironment = ["HOME"]\n\n[runtime]\nlifecycle = "lazy_resident"\nsharing = "workspace"\n\n[contributes]\nhooks = ["session_start", "session_end"]\nproviders = true\n`],
  ["0.3: a migration adapter", `${HEAD("0.3")}\n[contributes]\nproviders = true\n\n[migration]\nadapter = true\n`],
  ["0.3: [migration] adapter = false", `${HEAD("0.3")}\n[migration]\nadapter = false\n`],
  ["0.3: empty [commands] and [shortcuts]", `${HEAD("0.3")}\n[commands]\n\n[shortcuts]\n\n[contributes]\nproviders = false\nhooks = []\n`],
  ["flags, shortcuts, menu (bindings.test.ts)", DEPLOY],
  ["only the identity", HEAD("0.4")],
  ["identity in full", `${HEAD("0.2").replace('version = "0.1.0"', 'version = "1.0.0-rc.1+build.5"')}requires_octet = ">=0.8.0, <0.9.0"\ndescription = "Ünïcode ✓"\n`],
  ["requires_octet exact", `${HEAD("0.4")}requires_octet = "=0.8.0"\n`],
  ["entrypoint", plus('[entrypoint]\ncommand = "bin/run me"\nargs = ["--stdio", ""]\nenv = { LOG_LEVEL = "info", _X1 = "" }')],
  ["capabilities on 0.2", plus('[capabilities]\nfilesystem = "unrestricted"\nprocess = true\nnetwork = false\nsystem_prompt = true\nsecrets = ["svc.api_token", "b"]\nenvironment = ["SSH_AUTH_SOCK", "SSH_AUTH_SOCK"]')],
  ["capabilities on 0.1 without environment", plus('[capabilities]\nfilesystem = "none"\nsecrets = []', "0.1")],
  ["legacy hooks on 0.1", contributes('hooks = ["before_prompt", "after_tool_call"]\nui = ["status", "footer"]\ntool_renderers = ["get_forecast", "x.y-z"]\ncontext = true\nconfirmations = false\npresentation = false\nmenu = false', "0.1")],
  ["0.2 hooks on 0.2", contributes('hooks = ["provider_retry", "before_persistence", "post_mutation", "before_prompt"]\npresentation = true\nmenu = true')],
  ["0.4 hooks on 0.4", contributes('hooks = ["cache_warming_decision", "compaction_strategy", "session_before_compact", "session_compact", "session_before_tree", "session_tree", "model_turn_start", "model_turn_end", "provider_retry"]', "0.4")],
  ["empty [flags] and [shortcuts] on 0.1", plus("[flags]\n\n[shortcuts]", "0.1")],
  ["a flag of each type", flag('type = "integer"\ndefault = 9007199254740991\ndescription = ""') + '\n[flags.name]\ntype = "string"\ndefault = ""\n'],
  ["64 flags", plus(many("flags", 64, () => 'type = "boolean"\ndefault = true'), "0.4")],
  ["64 shortcuts", plus(many("shortcuts", 64, (i) => `key = "${KEYS[i]}"\ndescription = "Shortcut ${i}"`), "0.4")],
  ["shortcut key spelt loosely", shortcut('key = "P + Control + Shift"\ndescription = "Open"', "0.2")],
  ["256 tools", plus(many("tools", 255, (i) => `description = "Tool ${i}"`))],
  ["tool in full", tool('description = "Say hello"\nparameters = "schemas/args.json"\noutput_schema = { type = "object", properties = { n = { type = "integer" } } }\nvalidate = false')],
  ["parameters without a type", tool('description = "x"\nparameters = { properties = { a = { type = "string" } } }')],
  ["command without usage", command('description = "Hello"')],
  ["runtime: oneshot on 0.1", runtime('lifecycle = "oneshot"', "0.1")],
  ["runtime: isolated lazy_resident on 0.1", runtime('lifecycle = "lazy_resident"\nsharing = "isolated"', "0.1")],
  ["runtime: workspace_service", runtime('lifecycle = "workspace_service"\nsharing = "workspace"')],
  ["runtime: lazy_resident shared on 0.4", runtime('lifecycle = "lazy_resident"\nsharing = "workspace"', "0.4")],
  ["runtime: empty", runtime("")],
  ["source paths", source('file = "lib/main.ts"\ngenerated = "gen/out.gen.ts"')],
  ["source.generated only", source('generated = "src/x.gen.ts"')],
];

export const BAD: Bad[] = [
  ["unknown top-level key", `nmae = "x"\n${WEATHER}`, "nmae"],
  ["no name", WEATHER.replace('name = "weather"\n', ""), "name"],
  ["name with a capital", WEATHER.replace('name = "weather"', 'name = "Weather"'), "name"],
  ["name starting with a digit", WEATHER.replace('name = "weather"', 'name = "1weather"'), "name"],
  ["name of 65 characters", WEATHER.replace('name = "weather"', `name = "${"w".repeat(65)}"`), "name"],
  ["no version", WEATHER.replace('version = "0.1.0"\n', ""), "version"],
  ["version 1.0", WEATHER.replace('version = "0.1.0"', 'version = "1.0"'), "version"],
  ["version with a leading zero", WEATHER.replace('version = "0.1.0"', 'version = "01.0.0"'), "version"],
  ["version as a number", WEATHER.replace('version = "0.1.0"', "version = 1"), "version"],
  ["no api_version", WEATHER.replace('api_version = "0.2"\n', ""), "api_version"],
  ["api_version 0.5", at("0.5"), "api_version"],
  ["0.3: WEATHER's command", at("0.3"), "commands"],
  ["0.3: a shortcut", shortcut('key = "ctrl+shift+p"\ndescription = "Open"', "0.3").replace(COMMAND, ""), "shortcuts"],
  ["0.3: notifications = false", contributes("", "0.3").replace(COMMAND, "").replace("notifications = true", "notifications = false"), "contributes.notifications"],
  ...["ui = []", "context = true", 'tool_renderers = ["get_forecast"]', "confirmations = true", "presentation = false", "menu = false"].map(
    (line): Bad => [`0.3: ${line}`, `${HEAD("0.3")}\n[contributes]\n${line}\n`, `contributes.${line.split(" ")[0]}`],
  ),
  ["0.3: a legacy hook", `${HEAD("0.3")}\n[contributes]\nhooks = ["session_start", "session_end", "before_prompt"]\n`, "contributes.hooks"],
  ["0.3: half the session pair", `${HEAD("0.3")}\n[contributes]\nhooks = ["session_start"]\n`, "contributes.hooks"],
  ["0.4: the session pair", `${HEAD("0.4")}\n[contributes]\nhooks = ["session_start", "session_end"]\n`, "contributes.hooks"],
  ["0.2: providers", `${HEAD("0.2")}\n[contributes]\nproviders = true\n`, "contributes.providers"],
  ["0.4: a migration adapter", `${HEAD("0.4")}\n[migration]\nadapter = true\n`, "migration"],
  ["0.3: migration adapter as a string", `${HEAD("0.3")}\n[migration]\nadapter = "yes"\n`, "migration.adapter"],
  ["0.3: an unknown key in [migration]", `${HEAD("0.3")}\n[migration]\nadapter = true\nsource = "x"\n`, "migration.source"],
  ["0.3: providers as a string", `${HEAD("0.3")}\n[contributes]\nproviders = "yes"\n`, "contributes.providers"],
  ["api_version as a float", WEATHER.replace('api_version = "0.2"', "api_version = 0.2"), "api_version"],
  ["requires_octet latest", `requires_octet = "latest"\n${WEATHER}`, "requires_octet"],
  ["requires_octet as a number", `requires_octet = 8\n${WEATHER}`, "requires_octet"],
  ["description as a number", WEATHER.replace('description = "Forecasts"', "description = 5"), "description"],

  ["entrypoint as a string", `entrypoint = "run"\n${WEATHER}`, "entrypoint"],
  ["entrypoint: unknown key", plus('[entrypoint]\ncommand = "run"\ncwd = "."'), "entrypoint.cwd"],
  ["entrypoint: no command", plus('[entrypoint]\nargs = ["x"]'), "entrypoint.command"],
  ["entrypoint: blank command", plus('[entrypoint]\ncommand = "  "'), "entrypoint.command"],
  ["entrypoint: control character", plus('[entrypoint]\ncommand = "run\\u0007"'), "entrypoint.command"],
  ["entrypoint: args as a string", plus('[entrypoint]\ncommand = "run"\nargs = "--stdio"'), "entrypoint.args"],
  ["entrypoint: a number in args", plus('[entrypoint]\ncommand = "run"\nargs = ["a", 1]'), "entrypoint.args"],
  ["entrypoint: NUL in args", plus('[entrypoint]\ncommand = "run"\nargs = ["a\\u0000"]'), "entrypoint.args"],
  ["entrypoint: bad variable name", plus('[entrypoint]\ncommand = "run"\nenv = { 1X = "a" }'), "entrypoint.env.1X"],
  ["entrypoint: variable not a string", plus('[entrypoint]\ncommand = "run"\nenv = { X = 1 }'), "entrypoint.env.X"],
  ["entrypoint: env as an array", plus('[entrypoint]\ncommand = "run"\nenv = ["X=1"]'), "entrypoint.env"],

  ["capabilities as an array", `capabilities = []\n${WEATHER}`, "capabilities"],
  ["capabilities: unknown key", plus('[capabilities]\nfs = "none"'), "capabilities.fs"],
  ["capabilities: filesystem all", plus('[capabilities]\nfilesystem = "all"'), "capabilities.filesystem"],
  ["capabilities: network yes", plus('[capabilities]\nnetwork = "yes"'), "capabilities.network"],
  ["capabilities: bad secret name", plus('[capabilities]\nsecrets = ["1token"]'), "capabilities.secrets"],
  ["capabilities: secret twice", plus('[capabilities]\nsecrets = ["a", "a"]'), "capabilities.secrets"],
  ["capabilities: environment on 0.1", plus('[capabilities]\nenvironment = ["HOME"]', "0.1"), "capabilities.environment"],
  ["capabilities: environment as a string", plus('[capabilities]\nenvironment = "HOME"'), "capabilities.environment"],

  ["contributes as a string", `contributes = "x"\n${WEATHER.replace("[contributes]\nnotifications = true\n", "")}`, "contributes"],
  ["contributes.tools", contributes('tools = ["get_forecast"]'), "contributes.tools"],
  ["contributes.commands", contributes('commands = ["weather"]'), "contributes.commands"],
  ["contributes: unknown key", contributes('hook = ["before_prompt"]'), "contributes.hook"],
  ["contributes: unknown hook", contributes('hooks = ["on_start"]'), "contributes.hooks"],
  ["contributes: unimplemented 0.4 hook", contributes('hooks = ["provider_context"]', "0.4"), "contributes.hooks"],
  ["contributes: hook twice", contributes('hooks = ["before_prompt", "before_prompt"]'), "contributes.hooks"],
  ["contributes: hooks as a string", contributes('hooks = "before_prompt"'), "contributes.hooks"],
  ["contributes: 0.2 hook on 0.1", contributes('hooks = ["provider_retry"]', "0.1"), "contributes.hooks"],
  ["contributes: 0.4 hook on 0.2", contributes('hooks = ["model_turn_end"]'), "contributes.hooks"],
  ["contributes: unknown surface", contributes('ui = ["sidebar"]'), "contributes.ui"],
  ["contributes: surface twice", contributes('ui = ["status", "status"]'), "contributes.ui"],
  ["contributes: bad renderer name", contributes('tool_renderers = ["1x"]'), "contributes.tool_renderers"],
  ["contributes: context yes", contributes('context = "yes"'), "contributes.context"],
  ["contributes: presentation on 0.1", contributes("presentation = true", "0.1"), "contributes.presentation"],
  ["contributes: menu on 0.1", contributes("menu = true", "0.1"), "contributes.menu"],
  ["contributes: menu without commands", contributes("menu = true", "0.4").replace(COMMAND, ""), "contributes.menu", "/commands"],
  ["contributes: menu with an empty [commands]", contributes("menu = true", "0.4").replace(COMMAND, "[commands]\n\n"), "contributes.menu", "/commands"],

  ["tools as a string", `tools = "x"\n${NO_TOOLS}`, "tools"],
  ["tools: a tool that is not a table", `tools = { hello = 5 }\n${NO_TOOLS}`, "tools.hello"],
  ["tools: bad name", plus('[tools."say hello"]\ndescription = "x"'), "tools.say hello"],
  ["tools: unknown key", tool('description = "x"\ndesc = "y"'), "tools.hello.desc"],
  ["tools: no description", tool('parameters = { type = "object" }'), "tools.hello.description"],
  ["tools: blank description", tool('description = " \\t"'), "tools.hello.description"],
  ["tools: validate no", tool('description = "x"\nvalidate = "no"'), "tools.hello.validate"],
  ["tools: parameters as a number", tool('description = "x"\nparameters = 5'), "tools.hello.parameters"],
  ["tools: parameters of an array", tool('description = "x"\nparameters = { type = "array" }'), "tools.hello.parameters"],
  ["tools: parameters at an absolute path", tool('description = "x"\nparameters = "/tmp/args.json"'), "tools.hello.parameters"],
  ["tools: parameters outside the project", tool('description = "x"\nparameters = "../args.json"'), "tools.hello.parameters"],
  ["tools: parameters in YAML", tool('description = "x"\nparameters = "schemas/args.yaml"'), "tools.hello.parameters"],
  ["tools: output_schema on 0.1", tool('description = "x"\noutput_schema = { type = "object" }', "0.1"), "tools.hello.output_schema"],
  ["tools: output_schema as an array", tool('description = "x"\noutput_schema = [1]'), "tools.hello.output_schema"],
  ["tools: 257", plus(many("tools", 256, (i) => `description = "Tool ${i}"`)), "tools"],

  ["commands: leading slash", plus('[commands."/hello"]\ndescription = "x"'), "commands./hello"],
  ["commands: unknown key", command('description = "x"\nhelp = "y"'), "commands.hello.help"],
  ["commands: no description", command('usage = "/hello"'), "commands.hello.description"],
  ["commands: usage as a number", command('description = "x"\nusage = 5'), "commands.hello.usage"],

  ["flags on 0.1", flag('type = "boolean"\ndefault = false', "0.1"), "flags"],
  ["flags: capital in the name", plus('[flags.Verbose]\ntype = "boolean"\ndefault = false', "0.4"), "flags.Verbose"],
  ["flags: unknown key", flag('type = "boolean"\ndefault = false\nshort = "v"'), "flags.verbose.short"],
  ["flags: type float", flag('type = "float"\ndefault = 1.5'), "flags.verbose.type"],
  ["flags: no type", flag("default = false"), "flags.verbose.type"],
  ["flags: no default", flag('type = "boolean"'), "flags.verbose.default"],
  ["flags: boolean with a string default", flag('type = "boolean"\ndefault = "no"'), "flags.verbose.default"],
  ["flags: string with a number default", flag('type = "string"\ndefault = 1'), "flags.verbose.default"],
  ["flags: integer with a fraction", flag('type = "integer"\ndefault = 1.5'), "flags.verbose.default"],
  ["flags: integer past 2^53-1 (written as a float: Bun's TOML parser refuses such an integer)", flag('type = "integer"\ndefault = 9007199254740992.0'), "flags.verbose.default"],
  ["flags: string default of 4097 bytes", flag(`type = "string"\ndefault = "${"x".repeat(4097)}"`), "flags.verbose.default"],
  ["flags: description as a number", flag('type = "boolean"\ndefault = false\ndescription = 5'), "flags.verbose.description"],
  ["flags: 65", plus(many("flags", 65, () => 'type = "boolean"\ndefault = true'), "0.4"), "flags"],

  ["shortcuts on 0.1", shortcut('key = "ctrl+p"\ndescription = "Open"', "0.1"), "shortcuts"],
  ["shortcuts: bad name", plus('[shortcuts."open panel"]\nkey = "ctrl+p"\ndescription = "Open"', "0.4"), "shortcuts.open panel"],
  ["shortcuts: unknown key", shortcut('key = "ctrl+p"\ndescription = "Open"\nwhen = "always"'), "shortcuts.open.when"],
  ["shortcuts: no key", shortcut('description = "Open"'), "shortcuts.open.key"],
  ["shortcuts: empty key", shortcut('key = ""\ndescription = "Open"'), "shortcuts.open.key"],
  ["shortcuts: key with outer spaces", shortcut('key = " ctrl+p"\ndescription = "Open"'), "shortcuts.open.key"],
  ["shortcuts: key with a tab inside", shortcut('key = "ctrl+\\tp"\ndescription = "Open"'), "shortcuts.open.key"],
  ["shortcuts: no description", shortcut('key = "ctrl+p"'), "shortcuts.open.description"],
  ["shortcuts: blank description", shortcut('key = "ctrl+p"\ndescription = "  "'), "shortcuts.open.description"],
  ["shortcuts: description over two lines", shortcut('key = "ctrl+p"\ndescription = "Open\\nthe panel"'), "shortcuts.open.description"],
  ["shortcuts: 65", plus(many("shortcuts", 65, (i) => `key = "${KEYS[i]}"\ndescription = "Shortcut ${i}"`), "0.4"), "shortcuts"],

  ["runtime as a number", `runtime = 5\n${WEATHER}`, "runtime"],
  ["runtime: unknown key", runtime('lifecycel = "oneshot"'), "runtime.lifecycel"],
  ["runtime: lifecycle forever", runtime('lifecycle = "forever"'), "runtime.lifecycle"],
  ["runtime: lifecycle as an array", runtime('lifecycle = ["a"]'), "runtime.lifecycle"],
  ["runtime: sharing global", runtime('sharing = "global"'), "runtime.sharing"],
  ["runtime: always without workspace sharing", runtime('lifecycle = "always"'), "runtime.lifecycle"],
  ["runtime: always with isolated sharing", runtime('lifecycle = "always"\nsharing = "isolated"'), "runtime.lifecycle"],
  ["runtime: workspace sharing on the default lifecycle", runtime('sharing = "workspace"'), "runtime.sharing"],
  ["runtime: oneshot with workspace sharing", runtime('lifecycle = "oneshot"\nsharing = "workspace"'), "runtime.lifecycle"],
  ["runtime: workspace sharing on 0.1", runtime('lifecycle = "always"\nsharing = "workspace"', "0.1"), "runtime.sharing"],

  ["source as a string", `source = "src"\n${WEATHER}`, "source"],
  ["source: unknown key", source('entry = "src/x.ts"'), "source.entry"],
  ["source: file as a number", source("file = 5"), "source.file"],
  ["source: blank file", source('file = " "'), "source.file"],
  ["source: absolute file", source('file = "/tmp/x.ts"'), "source.file"],
  ["source: file outside the project", source('file = "../x.ts"'), "source.file"],
  ["source: file in node_modules", source('file = "node_modules/x.ts"'), "source.file"],
  ["source: file in node_modules through ./", source('file = "./node_modules/x.ts"'), "source.file"],
  ["source: file in dist", source('file = "dist/x.ts"'), "source.file"],
  ["source: file in JavaScript", source('file = "src/x.js"'), "source.file"],
  ["source: file = a generated name", source('file = "src/x.gen.ts"'), "source.file"],
  ["source: file = a declaration file", source('file = "src/x.d.ts"'), "source.file"],
  ["source: generated = the source file", source('generated = "src/extension.ts"'), "source.generated"],
  ["source: generated = the manifest", source('generated = "manifest.toml"'), "source.generated"],
  ["source: generated with the validators' suffix", source('generated = "src/x.validators.gen.ts"'), "source.generated"],
  ["source: generated with no stem", source('generated = "src/.gen.ts"'), "source.generated"],
  ["source: generated outside the project", source('generated = "../../escape.gen.ts"'), "source.generated"],
];

/**
 * What JSON Schema cannot say and gen checks (docs/manifest.md, "Checked by
 * gen only"): gen refuses each, the schema accepts it.
 */
export const GEN_ONLY: Bad[] = [
  ["parameters: a misspelt keyword", tool('description = "x"\nparameters = { type = "object", requried = ["a"] }'), "tools.hello.parameters/requried"],
  ["parameters: a code-generator keyword", tool('description = "x"\nparameters = { type = "object", properties = { a = { type = "string", tsType = "any" } } }'), "tools.hello.parameters/properties/a"],
  ["parameters: a dangling $ref", tool('description = "x"\nparameters = { type = "object", properties = { a = { "$ref" = "#/$defs/Nope" } } }'), "tools.hello.parameters/properties/a/$ref"],
  ["parameters: an unsupported draft", tool('description = "x"\nparameters = { "$schema" = "http://json-schema.org/draft-04/schema#", type = "object" }'), "tools.hello.parameters/$schema"],
  ["parameters: a schema file that does not exist", tool('description = "x"\nparameters = "schemas/missing.json"'), "tools.hello.parameters"],
  ["parameters: a schema file that leaves the project through ..", tool('description = "x"\nparameters = "schemas/../../args.json"'), "tools.hello.parameters"],
  ["output_schema: outside octet's subset", tool('description = "x"\noutput_schema = { type = "object", frobnicate = 1 }'), "tools.hello.output_schema"],
  ["shortcuts: a key octet reserves", shortcut('key = "ctrl+c"\ndescription = "Copy"'), "shortcuts.open.key"],
  ["shortcuts: a key without ctrl, alt or super", shortcut('key = "shift+p"\ndescription = "Open"'), "shortcuts.open.key"],
  ["shortcuts: two shortcuts on one key", shortcut('key = "ctrl+p"\ndescription = "Open"') + '\n[shortcuts.other]\nkey = "Ctrl+P"\ndescription = "Other"\n', "shortcuts.other.key"],
  ["flags: a string default within 4096 characters but over 4096 bytes", flag(`type = "string"\ndefault = "${"é".repeat(3000)}"`), "flags.verbose.default"],
  ["source: a path that leaves the project through ..", source('file = "src/../../x.ts"'), "source.file"],
  ["source: a path into node_modules through ..", source('file = "src/../node_modules/x.ts"'), "source.file"],
];
