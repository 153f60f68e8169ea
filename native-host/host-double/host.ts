/**
 * The double's stdio loop (docs/native-host-protocol.md §2, §3, §5, §6, §8): one
 * request at a time — the next line is read only after the current request
 * is over — answered with the real host's events unless the scenario
 * scripts them.
 *
 * Exit status: 0 at EOF (after "incomplete protocol frame at EOF" when
 * input ended inside a line) and after `shutdown`, both after stopping the
 * children a `spawn` step started; 1 when a `hello`, `models` or `shutdown`
 * reply had to be replaced by the outbound-oversize protocol_error, when
 * stdout cannot be written, or when `models` with `offline: true` finds the
 * working directory gone; 128+n on signals (see `signals.ts`).
 */
import fs from "node:fs";
import { buildCatalog, type CatalogModel } from "./catalog.ts";
import { decodeRequestLine, incompleteFrameError, oversizeRequestError } from "./decode.ts";
import { EventWriter, newScope, type Scope } from "./event-writer.ts";
import { exitAfterFlush, exitCleanly } from "./exit.ts";
import { FrameReader } from "./frame-reader.ts";
import { defaultHelloData, mergeHelloData } from "./hello-data.ts";
import { INVALID_REQUEST_ID } from "./id-rules.ts";
import { diagnostic, stdout } from "./output.ts";
import type { Request, RunRequest } from "./decoded-requests.ts";
import { newRunContext } from "./run-context.ts";
import { earlyFailure } from "./run-data.ts";
import type { Scenario, Step } from "./scenario.ts";
import { runSteps, type StepContext, type StepsResult } from "./steps.ts";
import { validateRun } from "./validate-run.ts";

const DEFAULT_RUN_SCRIPT: readonly Step[] = [{ defaultRun: true }];

export class Host {
  private readonly events = new EventWriter(stdout);
  private readonly reader = new FrameReader(0);
  private readonly helloData: Record<string, unknown>;
  private readonly catalog: CatalogModel[];
  private validRuns = 0;

  /** `recordPath`: file to which every request line read is appended (with LF) before it is processed. */
  constructor(
    private readonly scenario: Scenario,
    private readonly recordPath?: string,
  ) {
    this.helloData = mergeHelloData(defaultHelloData(), scenario.helloData);
    this.catalog = buildCatalog(scenario.catalog);
  }

  async serve(): Promise<never> {
    const preamble = this.scenario.preamble;
    if (preamble !== undefined) {
      const result = await runSteps(preamble, { scope: newScope("preamble"), events: this.events, defaultData: this.defaultData("preamble") });
      if (result.outcome === "abandoned") return exitAfterFlush(1);
    }
    for (;;) {
      const frame = await this.reader.next();
      switch (frame.kind) {
        case "eof":
          return exitCleanly(0);
        case "incomplete":
          await this.events.emit(invalidScope(), "protocol_error", incompleteFrameError());
          return exitCleanly(0);
        case "oversize":
          await this.events.emit(invalidScope(), "protocol_error", oversizeRequestError());
          continue;
        case "line":
          this.record(frame.bytes);
          await this.handleLine(frame.bytes);
      }
    }
  }

  private record(bytes: Uint8Array): void {
    if (this.recordPath === undefined) return;
    fs.appendFileSync(this.recordPath, Buffer.concat([bytes, Buffer.from("\n")]));
  }

  private async handleLine(bytes: Uint8Array): Promise<void> {
    const outcome = decodeRequestLine(bytes);
    if (outcome.kind === "ignore") return;
    if (outcome.kind === "protocol_error") {
      await this.events.emit(newScope("rejected", { requestId: outcome.requestId }), "protocol_error", outcome.data);
      return;
    }
    await this.dispatch(outcome.request);
  }

  private async dispatch(request: Request): Promise<void> {
    switch (request.command) {
      case "hello":
        return this.reply(request, this.scenario.hello ?? [{ event: "hello" }]);
      case "models":
        // Only the offline catalog is built for the current directory (as the workspace).
        if (request.offline && !cwdIsAvailable()) {
          await diagnostic("models: building the offline catalog failed: the working directory is unavailable");
          return exitAfterFlush(1);
        }
        return this.reply(request, this.scenario.models ?? [{ event: "models" }]);
      case "shutdown":
        await this.reply(request, this.scenario.shutdown ?? [{ event: "shutdown" }]);
        return exitCleanly(0);
      case "run":
        return this.run(request);
    }
  }

  /** hello / models / shutdown: an oversized reply escapes the loop (exit 1). */
  private async reply(request: Request, steps: readonly Step[]): Promise<void> {
    const scope = newScope(request.command, { requestId: request.requestId });
    const result = await this.script(request, steps, { scope, events: this.events, defaultData: this.defaultData(request.command) });
    if (result.outcome === "abandoned") return exitAfterFlush(1);
  }

  private async run(request: RunRequest): Promise<void> {
    const scope = newScope("run", { requestId: request.requestId, runId: request.runId, sessionId: request.sessionId });
    const validation = validateRun(request, this.catalog);
    if (!validation.ok) {
      await this.events.emit(scope, "final_result", earlyFailure(validation.error));
      return;
    }
    const scripts = this.scenario.runs ?? [DEFAULT_RUN_SCRIPT];
    const script = scripts[Math.min(this.validRuns, scripts.length - 1)] ?? DEFAULT_RUN_SCRIPT;
    this.validRuns++;
    const run = newRunContext(validation.plan, scope, this.events);
    await this.script(request, script, { scope, events: this.events, run, defaultData: this.defaultData("run") });
  }

  /** Run a request's steps; warn when they did not end it with exactly one terminal event. */
  private async script(request: Request, steps: readonly Step[], ctx: StepContext): Promise<StepsResult> {
    const result = await runSteps(steps, ctx);
    if (!result.uncounted && result.terminals !== 1) {
      await diagnostic(
        `scenario: the steps for ${request.command} request ${JSON.stringify(request.requestId)} wrote ${result.terminals} terminal events; the real host ends every request with exactly one`,
      );
    }
    return result;
  }

  private defaultData(kind: Scope["kind"]): (type: string) => Record<string, unknown> {
    return (type) => {
      if (type === "hello") return this.helloData;
      if (type === "models") return { models: this.catalog };
      if (type === "shutdown" && kind === "shutdown") return { accepted: true };
      return {};
    };
  }
}

function invalidScope(): Scope {
  return newScope("rejected", { requestId: INVALID_REQUEST_ID });
}

/** The offline catalog is built for the current directory; a deleted one fails. */
function cwdIsAvailable(): boolean {
  try {
    fs.realpathSync(".");
    return true;
  } catch {
    return false;
  }
}
