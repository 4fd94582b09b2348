/**
 * A test deployment (e2e only): highwater from its package entry with tools of each effect that
 * call a recording server (`RECORDER_URL`) with their idempotency key, and tools that show how
 * a stop, a thrown `ToolError`, any other throw and a secret reach the log.
 */
import { createHighwater, defineTool, ToolError } from "highwater";
import { z } from "zod";

function recorder(env: Record<string, unknown>): string {
  const url = env.RECORDER_URL;
  if (typeof url !== "string" || !url) throw new ToolError("not_configured", "RECORDER_URL is not set");
  return url;
}

/** A tool that POSTs `{ callId, note }` to `<RECORDER_URL>/<effect>` with its key and answers what the server said. */
const recording = (effect: "read" | "idempotent" | "write") =>
  defineTool({
    name: `record_${effect}`,
    description: `Send a note to the recorder (${effect}).`,
    input: z.object({ note: z.string() }),
    effect,
    async run({ note }, ctx) {
      const res = await fetch(`${recorder(ctx.env)}/${effect}`, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": ctx.idempotencyKey },
        body: JSON.stringify({ callId: ctx.callId, note }),
        signal: ctx.signal,
      });
      return (await res.json()) as unknown;
    },
  });

/** Reports to the recorder that it started, waits for its signal, then reports what the signal said. */
const waitForStop = defineTool({
  name: "wait_for_stop",
  description: "Run until stopped.",
  input: z.object({}),
  effect: "read",
  async run(_args, ctx) {
    const base = recorder(ctx.env);
    await fetch(`${base}/started`, { method: "POST", body: ctx.callId });
    await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
    await fetch(`${base}/aborted`, { method: "POST", body: JSON.stringify({ aborted: ctx.signal.aborted }) });
    return { stopped: true };
  },
});

const failTyped = defineTool({
  name: "fail_typed",
  description: "Fails with a ToolError.",
  input: z.object({ id: z.string() }),
  effect: "read",
  run({ id }) {
    throw new ToolError("order_not_found", `no order ${id}`);
  },
});

const failPlain = defineTool({
  name: "fail_plain",
  description: "Fails with an ordinary error.",
  input: z.object({}),
  effect: "read",
  run() {
    throw new Error("the database is on fire");
  },
});

/** Reads the secret `DEMO_SECRET` and hands it back in its result and in an error message. */
const leakSecret = defineTool({
  name: "leak_secret",
  description: "Returns the secret (it must be redacted).",
  input: z.object({ throw: z.boolean().default(false) }),
  effect: "read",
  run(args, ctx) {
    const value = ctx.secret("DEMO_SECRET");
    if (args.throw) throw new Error(`upstream refused token ${value}`);
    return { echoed: `token=${value}` };
  },
});

/** Takes 5 s whatever its signal says, with a 1 s timeout: a write and a read, to see how each is answered. */
const slow = (effect: "read" | "write") =>
  defineTool({
    name: `slow_${effect}`,
    description: `Takes 5 s; times out after 1 s (${effect}).`,
    input: z.object({}),
    effect,
    timeoutMs: 1000,
    async run(_args, ctx) {
      await fetch(`${recorder(ctx.env)}/slow-${effect}`, { method: "POST", body: ctx.callId });
      await new Promise((r) => setTimeout(r, 5000));
      return { done: true };
    },
  });

/** Hands the secret `DEMO_SECRET` back encoded the ways servers echo it: base64, base64url, inside Basic auth. */
const leakEncoded = defineTool({
  name: "leak_encoded",
  description: "Returns the secret encoded (it must be redacted).",
  input: z.object({}),
  effect: "read",
  run(_args, ctx) {
    const value = ctx.secret("DEMO_SECRET") ?? "";
    const b64 = btoa(value);
    return {
      base64: b64,
      base64url: b64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, ""),
      basic: `Basic ${btoa(`user:${value}`)}`,
      percent: encodeURIComponent(`${value}/?&`),
    };
  },
});

/** A result over the offload threshold: archived first, the model sees a placeholder. */
const bigResult = defineTool({
  name: "big_result",
  description: "Returns a large text.",
  input: z.object({ kib: z.number().int().min(1).max(1024) }),
  effect: "read",
  run: ({ kib }) => ({ text: "0123456789abcdef".repeat(kib * 64) }),
});

export const {
  SessionObject,
  DirectoryObject,
  MemoryObject,
  SkillsObject,
  TokenObject,
  ChannelObject,
  default: worker,
} = createHighwater({
  tools: [
    recording("read"),
    recording("idempotent"),
    recording("write"),
    waitForStop,
    failTyped,
    failPlain,
    leakSecret,
    leakEncoded,
    bigResult,
    slow("write"),
    slow("read"),
  ],
});
export default worker;
