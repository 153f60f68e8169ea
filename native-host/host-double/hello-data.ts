/** The `hello` data of octet 0.8.0 (seed 002, verbatim) and the scenario's patch of it (docs/native-host-protocol.md §6.1). */

/** The hello `data` of the real 0.8.0 host, key order included. */
export function defaultHelloData(): Record<string, unknown> {
  return {
    sdk_version: "0.8.0",
    protocol_version: 1,
    max_frame_bytes: 1048576,
    max_concurrent_runs: 1,
    commands: ["hello", "models", "run", "shutdown"],
    features: {
      streaming: true,
      persistent_sessions: true,
      seed_history: true,
      typed_media_input: true,
      typed_image_input: true,
      typed_audio_input: true,
      prompt_display_text: true,
      inline_models: true,
      tools: true,
      skills: true,
      extensions: true,
      process_group_abort: true,
      in_band_abort: false,
    },
  };
}

/**
 * `defaults` with `patch` merged in: `null` removes a key, `features` is
 * merged one level deeper (unless the patch's value is not an object).
 */
export function mergeHelloData(defaults: Record<string, unknown>, patch: Record<string, unknown> | undefined): Record<string, unknown> {
  if (patch === undefined) return defaults;
  const out = { ...defaults };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete out[key];
    } else if (key === "features" && isPlainObject(value) && isPlainObject(out.features)) {
      const features: Record<string, unknown> = { ...out.features };
      for (const [name, flag] of Object.entries(value)) {
        if (flag === null) delete features[name];
        else features[name] = flag;
      }
      out.features = features;
    } else {
      out[key] = value;
    }
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
