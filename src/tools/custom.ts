/**
 * A deployment's own tools in TypeScript (docs/API.md#your-own-tools-in-typescript): `defineTool`
 * turns the author's definition into a tool the runtime runs like a built-in (T1, run, T2,
 * approvals, offload, stop, recovery by its effect).
 */
import { z } from "zod";
import type { ToolEffect } from "../log";
import type { ToolContext, ToolDefinition, ToolResult } from "./types";

/** What a custom tool's `run` receives besides its arguments. */
export type CustomToolContext = {
  sessionId: string;
  callId: string;
  /** Recorded at dispatch; the same on a re-run after a crash, so an external system can act once. */
  idempotencyKey: string;
  /** Aborted by a stop (and by the tool timeout). */
  signal: AbortSignal;
  /** The Worker's vars, secrets and bindings. */
  env: Record<string, unknown>;
  /** A Worker var or secret by name (undefined when unset); its value never reaches the log. */
  secret(name: string): string | undefined;
};

export type CustomToolSpec<I> = {
  /** `[A-Za-z0-9_-]{1,64}` without `__` (the mark of an MCP tool), not a built-in's name. */
  name: string;
  description: string;
  /** Validated like a built-in's arguments; its JSON schema is what the model sees. */
  input: z.ZodType<I>;
  /** Decides recovery after a crash: `read` and `idempotent` calls are run again, `write` calls are answered `interrupted`. */
  effect: ToolEffect | ((args: I) => ToolEffect);
  /**
   * How long one call may run, 1000–600000 ms (default 60000). A `write` call that runs out of
   * time is answered `interrupted` (it may have taken effect); any other `tool_timeout`.
   */
  timeoutMs?: number;
  /** The value returned is the `ok` response; a thrown `ToolError` is an `error` response with its code. */
  run(args: I, ctx: CustomToolContext): Promise<unknown> | unknown;
};

/** A failure the model reads: status `error` with `{ code, message }`. */
export class ToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ToolError";
  }
}

export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const EFFECTS: readonly ToolEffect[] = ["read", "idempotent", "write"];
export const CUSTOM_TIMEOUT_MS = { min: 1000, max: 600_000 };

/**
 * Why a static tool's name cannot be used, or null. `__` is refused because the model sees MCP
 * tools as `<server>__<tool>`: a name without it never equals one (docs/API.md#tools-in-typescript).
 */
export function toolNameProblem(name: unknown): string | null {
  if (typeof name !== "string" || !TOOL_NAME.test(name)) return "name must match [A-Za-z0-9_-]{1,64}";
  if (name.includes("__")) return 'name must not contain "__" (MCP tools are named <server>__<tool>)';
  return null;
}

/** Why the model could not be shown this input schema (it has no JSON Schema form), or null. */
export function inputSchemaProblem(input: z.ZodType): string | null {
  try {
    z.toJSONSchema(input, { io: "input" });
    return null;
  } catch (err) {
    return `input has no JSON Schema form (${(err as Error).message}); use types JSON can hold`;
  }
}

/** Defines a tool for `createHighwater({ tools })`. Throws when the definition cannot work, naming the problem. */
export function defineTool<I>(spec: CustomToolSpec<I>): ToolDefinition<I> {
  const where = `defineTool(${JSON.stringify(spec?.name)})`;
  const nameProblem = toolNameProblem(spec?.name);
  if (nameProblem) throw new TypeError(`${where}: ${nameProblem}`);
  if (typeof spec.description !== "string") throw new TypeError(`${where}: description must be a string`);
  if (typeof spec.input?.safeParse !== "function") throw new TypeError(`${where}: input must be a zod schema`);
  const schemaProblem = inputSchemaProblem(spec.input);
  if (schemaProblem) throw new TypeError(`${where}: ${schemaProblem}`);
  const timeoutMs = spec.timeoutMs;
  if (
    timeoutMs !== undefined &&
    !(Number.isInteger(timeoutMs) && timeoutMs >= CUSTOM_TIMEOUT_MS.min && timeoutMs <= CUSTOM_TIMEOUT_MS.max)
  )
    throw new TypeError(`${where}: timeoutMs must be an integer from 1000 to 600000`);
  if (typeof spec.run !== "function") throw new TypeError(`${where}: run must be a function`);
  const declared = spec.effect;
  if (typeof declared !== "function" && !EFFECTS.includes(declared))
    throw new TypeError(`${where}: effect must be "read", "idempotent", "write" or a function of the arguments`);
  return {
    name: spec.name,
    source: "custom",
    description: spec.description,
    input: spec.input,
    effect: (args) => effectOf(declared, args),
    declaredEffect: typeof declared === "function" ? "by-arguments" : declared,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    run: (args, ctx) => runCustom(spec, args, ctx),
  };
}

/** The call's effect; one that cannot be decided (a throw, an unknown value) is `write`. */
function effectOf<I>(declared: CustomToolSpec<I>["effect"], args: I): ToolEffect {
  if (typeof declared !== "function") return declared;
  try {
    const e = declared(args);
    return EFFECTS.includes(e) ? e : "write";
  } catch {
    return "write";
  }
}

async function runCustom<I>(spec: CustomToolSpec<I>, args: I, ctx: ToolContext): Promise<ToolResult> {
  const env = ctx.env ?? {};
  const custom: CustomToolContext = {
    sessionId: ctx.sessionId,
    callId: ctx.callId,
    idempotencyKey: ctx.idempotencyKey,
    signal: ctx.signal,
    env,
    secret: (name) => ctx.secret?.(name),
  };
  // A tool that ignores its signal still ends the step when the call is stopped or times out.
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(ctx.signal.reason ?? new Error("aborted"));
  });
  aborted.catch(() => {});
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener("abort", onAbort, { once: true });
  try {
    // Started at once (an async function runs to its first await), so the tool sees a stop that follows.
    const value = await Promise.race([(async () => spec.run(args, custom))(), aborted]);
    return { status: "ok", response: plainJson(value) };
  } finally {
    ctx.signal.removeEventListener("abort", onAbort);
  }
}

/** The value as the log will hold it (plain JSON); a value JSON cannot hold is the tool's failure. */
function plainJson(value: unknown): unknown {
  if (value === undefined) return null;
  const text = JSON.stringify(value);
  if (text === undefined) throw new Error("the tool returned a value that is not JSON");
  return JSON.parse(text);
}

/**
 * The outcome of a tool that threw: a `ToolError`'s code, else `tool_failed` (or `aborted` once
 * stopped). A `write` call that ran out of time may have taken effect: it is answered like an
 * interrupted call, so the model checks before calling again (docs/API.md#tools-in-typescript).
 */
export function thrownOutcome(err: unknown, signal: AbortSignal, effect?: ToolEffect): ToolResult {
  const message = err instanceof Error ? err.message : String(err);
  if (
    err instanceof ToolError ||
    (err instanceof Error && err.name === "ToolError" && typeof (err as ToolError).code === "string")
  )
    return { status: "error", response: { code: (err as ToolError).code, message } };
  if (!signal.aborted) return { status: "error", response: { code: "tool_failed", message } };
  const timedOut = (signal.reason as Error | undefined)?.name === "TimeoutError";
  if (timedOut && effect === "write")
    return { status: "interrupted", response: { reason: "timeout", message: TIMED_OUT_WRITE } };
  return { status: "error", response: { code: timedOut ? "tool_timeout" : "aborted", message } };
}

const TIMED_OUT_WRITE =
  "The call ran out of time while it was running: its effect may or may not have happened. Check before calling it again.";
