import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { BlobStore } from "../../src/log";
import { applyMigrations } from "../../src/storage";
import {
  applyFileChanges,
  BUILTIN_TOOLS,
  parseToolArgs,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
} from "../../src/tools";

/** What the tool files share: a fresh object's SQLite as a tool context, and a call as the runtime makes it. */

let counter = 0;

/** Runs `fn` against a fresh session object's SQLite. */
export async function withSql<T>(fn: (ctx: ToolContext) => Promise<T>, fetchFn?: typeof fetch, signal?: AbortSignal) {
  const stub = env.SESSIONS.get(env.SESSIONS.idFromName(`tools-${Date.now()}-${counter++}`));
  return runInDurableObject(stub, async (_instance, state) => {
    // An object migrates lazily with its seq 1 (docs/API.md §7.26); these tests use its tables directly.
    state.storage.transactionSync(() => applyMigrations(state.storage.sql));
    const ctx: ToolContext = {
      sessionId: "s",
      callId: "c",
      idempotencyKey: "k",
      signal: signal ?? new AbortController().signal,
      sql: state.storage.sql,
      blobs: new BlobStore(state.storage.sql),
      httpAllowedHosts: ["allowed.test", "*.ok.test:*"],
      fetch: fetchFn ?? (() => Promise.reject(new Error("no network in this test"))),
    };
    return fn(ctx);
  });
}

let seq = 0;
/** Parses like the runtime does, runs, and applies an ok result's file changes. */
export async function call(
  ctx: ToolContext,
  name: string,
  args: unknown,
  tool?: ToolDefinition<unknown>,
): Promise<ToolResult> {
  const def = tool ?? BUILTIN_TOOLS[name]!;
  const parsed = parseToolArgs(def, args);
  if (!parsed.ok) throw new Error(`bad args for ${name}: ${JSON.stringify(parsed.issues)}`);
  const result = await def.run(parsed.args, ctx);
  if (result.status === "ok" && result.fileChanges) applyFileChanges(ctx.sql, result.fileChanges, ++seq, `t${seq}`);
  return result;
}

export function ok(result: ToolResult) {
  expect(result.status, JSON.stringify(result.response)).toBe("ok");
  return result.response as Record<string, unknown>;
}

export function err(result: ToolResult) {
  expect(result.status).toBe("error");
  return result.response as { code: string; message: string };
}
