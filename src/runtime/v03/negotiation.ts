import { compareCodePoints } from "../../wire/canonical-frame.ts";
import { WireError } from "./canonical-errors.ts";
import {
  API_VERSION_03,
  BOUNDS,
  CANONICAL_ENCODING,
  DEFERRED_CAPABILITIES,
  METHODS,
  OPTIONAL_CAPABILITIES,
  REFUSED_CONTRIBUTIONS,
  REQUIRED_CAPABILITIES,
  REQUIRED_METHODS,
  SCHEMA_ID,
  SESSION_HOOKS,
} from "./canonical-protocol.ts";
import type { ContractOffer, ContractSelection, InitializeRequest03, ProtocolLimits, ToolDefinition03 } from "./canonical-types.ts";
import { checkModel } from "./validate.ts";

/** What one group of optional methods needs selected: everything offered, or none of it. */
export interface ServiceSelection {
  capabilities: readonly string[];
  methods: readonly string[];
}

/** What the extension brings to the negotiation. */
export interface Implementation {
  /** Registered tools by name. */
  tools: ReadonlyMap<string, ToolDefinition03>;
  /** The optional groups it can serve for this manifest (`contributes`), each all-or-nothing. */
  services(contributes: Record<string, unknown>): ServiceSelection[];
  /** Local maxima the author set explicitly (selected limits never exceed the offer). */
  maxConcurrentRequests?: number;
  maxFrameBytes?: number;
}

/** The outcome of a successful initialize. */
export interface Negotiated {
  params: InitializeRequest03;
  result: { api_version: "0.3"; contract: ContractSelection; tools: ToolDefinition03[] };
  capabilities: ReadonlySet<string>;
  methods: ReadonlySet<string>;
  limits: ProtocolLimits;
  /** `flag_values` by name. */
  flags: Readonly<Record<string, unknown>>;
}

const KNOWN_CAPABILITIES = new Set<string>([...REQUIRED_CAPABILITIES, ...OPTIONAL_CAPABILITIES, ...DEFERRED_CAPABILITIES]);
const CONTRIBUTES_KEYS = new Set(["tools", "hooks", "providers", "flags", ...REFUSED_CONTRIBUTIONS]);

/**
 * Answer an API 0.3 `initialize` (docs/protocol-0.3.md §3): check the
 * request and the host's `ContractOffer`, then select every required name
 * and the optional ones the extension implements, sorted by code point, with
 * the offered limits (lowered only where the author asked). Failures are the
 * error table's: `-32010` wrong version or schema, `-32602` wrong encoding or
 * shape, `-32011` a contract or contribution mismatch, `-32012` a bound.
 */
export function negotiate03(params: unknown, implementation: Implementation): Negotiated {
  if (params === null || typeof params !== "object" || Array.isArray(params)) throw new WireError("invalid_params", "initialize params must be an object");
  const version = (params as Record<string, unknown>).api_version;
  if (typeof version === "string" && version !== API_VERSION_03) {
    throw new WireError("version_mismatch", `the host requested API ${version}; this extension speaks ${API_VERSION_03}`, { expected: API_VERSION_03, received: version });
  }
  checkModel("InitializeRequest", params, "initialize");
  const request = params as InitializeRequest03;
  const offer = checkOffer(request.contract);
  for (const [i, flag] of request.flag_values.entries()) if (flag.value === null) throw new WireError("invalid_params", `initialize.flag_values[${i}].value must not be null`);
  const contributes = checkContributes(request.contributes, implementation.tools);
  if (implementation.tools.size > offer.limits.max_tools) {
    throw new WireError("resource_exhausted", `${implementation.tools.size} tools exceed the offered max_tools ${offer.limits.max_tools}`, { max_tools: offer.limits.max_tools });
  }

  const offeredCapabilities = new Set([...offer.required_capabilities, ...offer.optional_capabilities]);
  const offeredMethods = new Set([...offer.required_methods, ...offer.optional_methods]);
  const capabilities = new Set<string>(REQUIRED_CAPABILITIES);
  const methods = new Set<string>(REQUIRED_METHODS);
  for (const group of implementation.services(contributes)) {
    if (group.capabilities.every((c) => offeredCapabilities.has(c)) && group.methods.every((m) => offeredMethods.has(m))) {
      for (const c of group.capabilities) capabilities.add(c);
      for (const m of group.methods) methods.add(m);
    }
  }
  for (const method of methods) {
    if (!capabilities.has(METHODS[method]!.capability)) throw new Error(`selection bug: ${method} without its capability ${METHODS[method]!.capability}`);
  }
  const limits: ProtocolLimits = {
    max_concurrent_requests: lower(offer.limits.max_concurrent_requests, implementation.maxConcurrentRequests),
    max_frame_bytes: lower(offer.limits.max_frame_bytes, implementation.maxFrameBytes),
    max_tools: offer.limits.max_tools,
  };
  const order = Array.isArray(contributes.tools) ? (contributes.tools as string[]) : [];
  const contract: ContractSelection = {
    capabilities: [...capabilities].sort(compareCodePoints),
    encoding: CANONICAL_ENCODING,
    limits,
    methods: [...methods].sort(compareCodePoints),
    schema: SCHEMA_ID,
  };
  const flags: Record<string, unknown> = Object.create(null);
  for (const flag of request.flag_values) flags[flag.name] = flag.value;
  return {
    params: request,
    result: { api_version: API_VERSION_03, contract, tools: order.map((name) => implementation.tools.get(name)!) },
    capabilities,
    methods,
    limits,
    flags,
  };
}

/** The offer, held to the fixed sets and the schema's bounds (octet `validateOffer`). */
function checkOffer(offer: ContractOffer): ContractOffer {
  if (offer.schema !== SCHEMA_ID) throw new WireError("version_mismatch", `contract.schema is ${JSON.stringify(offer.schema)}, not ${SCHEMA_ID}`, { expected: SCHEMA_ID, received: offer.schema });
  if (offer.encoding !== CANONICAL_ENCODING) {
    throw new WireError("invalid_params", `contract.encoding is ${JSON.stringify(offer.encoding)}, not ${CANONICAL_ENCODING}`, { expected: CANONICAL_ENCODING, received: offer.encoding });
  }
  const requiredCapabilities = names(offer.required_capabilities, "required_capabilities", BOUNDS.max_capability_name_bytes, KNOWN_CAPABILITIES);
  const optionalCapabilities = names(offer.optional_capabilities, "optional_capabilities", BOUNDS.max_capability_name_bytes, KNOWN_CAPABILITIES);
  const knownMethods = new Set(Object.keys(METHODS));
  const requiredMethods = names(offer.required_methods, "required_methods", BOUNDS.max_method_name_bytes, knownMethods);
  const optionalMethods = names(offer.optional_methods, "optional_methods", BOUNDS.max_method_name_bytes, knownMethods);
  const mismatch = (detail: string, data: unknown) => new WireError("capability_mismatch", detail, data);
  if (!sameSet(requiredCapabilities, REQUIRED_CAPABILITIES)) throw mismatch(`contract.required_capabilities must be exactly ${REQUIRED_CAPABILITIES.join(", ")}`, { required_capabilities: offer.required_capabilities });
  if (!sameSet(requiredMethods, REQUIRED_METHODS)) throw mismatch(`contract.required_methods must be exactly ${REQUIRED_METHODS.join(", ")}`, { required_methods: offer.required_methods });
  for (const name of optionalCapabilities) {
    if (requiredCapabilities.has(name)) throw mismatch(`capability ${name} is both required and optional`, { capability: name });
    if (!(OPTIONAL_CAPABILITIES as readonly string[]).includes(name)) throw mismatch(`capability ${name} is deferred and cannot be offered`, { capability: name });
  }
  for (const name of optionalMethods) {
    if (requiredMethods.has(name)) throw mismatch(`method ${name} is both required and optional`, { method: name });
    if (METHODS[name]!.deferred) throw mismatch(`method ${name} is deferred and cannot be offered`, { method: name });
  }
  for (const method of [...requiredMethods, ...optionalMethods]) {
    const capability = METHODS[method]!.capability;
    if (!requiredCapabilities.has(capability) && !optionalCapabilities.has(capability)) throw mismatch(`method ${method} is offered without its capability ${capability}`, { method, capability });
  }
  const maxima = { max_frame_bytes: BOUNDS.max_frame_bytes, max_concurrent_requests: BOUNDS.max_concurrent_requests, max_tools: BOUNDS.max_tools };
  for (const [key, maximum] of Object.entries(maxima) as [keyof ProtocolLimits, number][]) {
    const value = offer.limits[key];
    if (value <= 0) throw new WireError("invalid_params", `contract.limits.${key} must be a positive integer`);
    if (value > maximum) throw new WireError("resource_exhausted", `contract.limits.${key} ${value} exceeds the API 0.3 maximum ${maximum}`, { [key]: value, maximum });
  }
  return offer;
}

/** A list of names: strings within `bytes`, known and unique (`-32011` otherwise). */
function names(list: string[], key: string, bytes: number, known: ReadonlySet<string>): Set<string> {
  const seen = new Set<string>();
  for (const name of list) {
    if (name === "" || Buffer.byteLength(name) > bytes) throw new WireError("invalid_params", `contract.${key} holds an empty name or one over ${bytes} bytes`);
    if (!known.has(name)) throw new WireError("capability_mismatch", `contract.${key} names ${JSON.stringify(name)}, which API 0.3 does not define`, { [key]: name });
    if (seen.has(name)) throw new WireError("capability_mismatch", `contract.${key} names ${name} twice`, { [key]: name });
    seen.add(name);
  }
  return seen;
}

/**
 * `contributes` as the host sent it: only keys a manifest can hold, none of
 * the contributions 0.3 refuses, hooks only the session pair, and `tools`
 * exactly the registered tools (`-32011` otherwise).
 */
function checkContributes(value: Record<string, unknown>, tools: ReadonlyMap<string, ToolDefinition03>): Record<string, unknown> {
  const mismatch = (detail: string, data: unknown) => new WireError("capability_mismatch", detail, data);
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new WireError("invalid_params", "initialize.contributes must be an object");
  for (const [key, item] of Object.entries(value)) {
    if (!CONTRIBUTES_KEYS.has(key)) throw mismatch(`contributes.${key} is not a contribution`, { contributes: key });
    if ((REFUSED_CONTRIBUTIONS as readonly string[]).includes(key) && item !== false && !(Array.isArray(item) && item.length === 0)) {
      throw mismatch(`contributes.${key} is not available on API 0.3`, { contributes: key });
    }
  }
  const hooks = value.hooks ?? [];
  if (!Array.isArray(hooks) || hooks.some((h) => !(SESSION_HOOKS as readonly string[]).includes(h)) || new Set(hooks).size !== hooks.length || (hooks.length !== 0 && hooks.length !== 2)) {
    throw mismatch("contributes.hooks must be [] or the pair session_start, session_end on API 0.3", { hooks });
  }
  const declared = value.tools ?? [];
  const registered = [...tools.keys()];
  if (!Array.isArray(declared) || new Set(declared).size !== declared.length || declared.length !== registered.length || declared.some((name) => !tools.has(name))) {
    throw mismatch(`contributes.tools ${JSON.stringify(declared)} differs from the registered tools ${JSON.stringify(registered)}`, { tools: declared });
  }
  return value;
}

function sameSet(set: ReadonlySet<string>, expected: readonly string[]): boolean {
  return set.size === expected.length && expected.every((name) => set.has(name));
}

function lower(offered: number, local: number | undefined): number {
  return local === undefined ? offered : Math.min(offered, local);
}
