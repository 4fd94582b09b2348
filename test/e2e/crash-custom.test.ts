/**
 * Recovery by effect for a deployment's own tools (README.md#what-each-effect-means-after-a-crash): a real
 * `wrangler dev` of a deployment built on the package entry is killed with SIGKILL at F4 (T1
 * committed, tool not started), F5 (the tool's request in flight) and F6 (the tool answered, T2
 * not committed), restarted on the same dir, and given no request. The recording server counts
 * the tool's calls and their `Idempotency-Key`: a `read` is run again, an `idempotent` one is
 * run again with the same key, a `write` is answered `interrupted` and never sent again. The
 * example deployment's `lookup_order` (examples/custom-tool) goes through F5 the same way.
 *
 *   npx vitest run --project e2e test/e2e/crash-custom.test.ts
 *   CRASH_ONLY=write …        only the cases whose label starts with one of these
 *
 * The table (effect × kill point → calls the server saw, their keys, the response) is printed
 * and written to test-results/crash-custom-table.json.
 */
import { createHash } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { limiter } from "./crash/run-case";
import { customToolsConfig, EXAMPLE_CONFIG } from "./custom/config";
import { createApi, describeEvent, type Event, verifyExportIndependently } from "./harness/api";
import { scriptedAgent, startFakeOpenAI } from "./harness/fake-openai";
import { startFakeService } from "./harness/fake-service";
import { makePersistDir, REPO_ROOT, startFailpointSink, startWrangler, type Wrangler } from "./harness/wrangler";

type Effect = "read" | "idempotent" | "write";
type Kill = "F4" | "F5" | "F6";
type Case = {
  label: string;
  effect: Effect;
  kill: Kill;
  tool: string;
  args: unknown;
  /** The path the tool calls at the recording server. */
  path: string;
  config: () => string;
  /** The var that points the tool at the recording server. */
  urlVar: string;
};

const TOKEN = "crash-custom-token";
const keyFor = (sessionId: string, callId: string) =>
  `hw_${createHash("sha256").update(`${sessionId}:${callId}`).digest("hex").slice(0, 32)}`;

const CASES: Case[] = [
  ...(["read", "idempotent", "write"] as const).flatMap((effect) =>
    (["F4", "F5", "F6"] as const).map(
      (kill): Case => ({
        label: `${effect} ${kill}`,
        effect,
        kill,
        tool: `record_${effect}`,
        args: { note: `crash at ${kill}` },
        path: `/${effect}`,
        config: customToolsConfig,
        urlVar: "RECORDER_URL",
      }),
    ),
  ),
  {
    label: "example lookup_order (read) F5",
    effect: "read",
    kill: "F5",
    tool: "lookup_order",
    args: { id: "A-1001" },
    path: "/orders/A-1001",
    config: () => EXAMPLE_CONFIG,
    urlVar: "ORDERS_URL",
  },
];

/** Calls the server sees for the killed call, in all: F4 kills before it leaves. */
const EXPECTED_CALLS: Record<Effect, Record<Kill, number>> = {
  read: { F4: 1, F5: 2, F6: 2 },
  idempotent: { F4: 1, F5: 2, F6: 2 },
  write: { F4: 0, F5: 1, F6: 1 },
};

type Row = {
  case: string;
  callsSeen: number;
  keys: string[];
  sameKey: boolean;
  status: string;
  toolRecovery: string | null;
};
const rows: Row[] = [];
const ONLY = process.env.CRASH_ONLY?.split(",").map((s) => s.trim());
const selected = CASES.filter((c) => !ONLY || ONLY.some((o) => c.label.startsWith(o)));
const withSlot = limiter(Math.max(1, Number(process.env.CRASH_CONCURRENCY) || 2));

async function runCase(spec: Case) {
  const cleanups: (() => unknown)[] = [];
  let worker: Wrangler | undefined;
  try {
    const service = await startFakeService();
    cleanups.push(() => service.close());
    const fake = await startFakeOpenAI(
      scriptedAgent([{ toolCalls: [{ name: spec.tool, args: spec.args }] }, { text: "done: recorded" }]),
    );
    cleanups.push(() => fake.close());
    const sink = await startFailpointSink();
    cleanups.push(() => sink.close());
    const persistTo = makePersistDir("hw-crash-custom-");
    cleanups.push(() => rmSync(persistTo, { recursive: true, force: true }));
    const vars = {
      API_TOKENS: TOKEN,
      MODEL_PROVIDER: "openai",
      MODEL_BASE_URL: fake.url,
      MODEL_API_KEY: "x",
      MODEL_NAME: "fake-model",
      [spec.urlVar]: service.url,
    };
    const config = spec.config();
    worker = await startWrangler({
      persistTo,
      config,
      vars: { ...vars, HW_FAILPOINT: spec.kill, HW_FAILPOINT_URL: sink.url },
    });
    let api = createApi(worker.url, TOKEN);
    const session = await api.createSession({});
    if (spec.kill === "F5") service.hold(spec.path);
    await api.sendMessage(session.id, `call ${spec.tool}`);
    await sink.waitFor(spec.kill, 60_000);
    if (spec.kill === "F5") await service.waitForHit(spec.path);
    const preKill = await api.allEvents(session.id);
    const hitsAtKill = service.hits(spec.path);
    await worker.kill9();
    service.release(spec.path);

    worker = await startWrangler({ persistTo, config, vars });
    api = createApi(worker.url, TOKEN);
    const { session: final, events } = await api.waitForIdle(session.id, { timeoutMs: 90_000 });
    return {
      spec,
      sessionId: session.id,
      preKill,
      hitsAtKill,
      events,
      final,
      exportNdjson: await api.exportNdjson(session.id),
      keys: service.log.filter((h) => h.path === spec.path).map((h) => String(h.headers["idempotency-key"])),
      logs: worker.logs(),
    };
  } finally {
    await worker?.stop().catch(() => undefined);
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
  }
}

describe.concurrent("custom tools: kill -9 at F4, F5, F6, recovery by effect", () => {
  afterAll(() => {
    if (rows.length === 0) return;
    rows.sort((a, b) => CASES.findIndex((c) => c.label === a.case) - CASES.findIndex((c) => c.label === b.case));
    console.log(
      [
        "| case | calls seen | keys | response | toolRecovery |",
        "| --- | --- | --- | --- | --- |",
        ...rows.map(
          (r) =>
            `| ${r.case} | ${r.callsSeen} | ${r.keys.length === 0 ? "—" : `${r.keys[0]}${r.keys.length > 1 ? ` ×${r.keys.length} (same: ${r.sameKey})` : ""}`} | ${r.status} | ${r.toolRecovery ?? "—"} |`,
        ),
      ].join("\n"),
    );
    const dir = join(REPO_ROOT, "test-results");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "crash-custom-table.json"), `${JSON.stringify(rows, null, 2)}\n`);
  });

  for (const spec of selected) {
    it(`${spec.label}: ${spec.effect === "write" ? "interrupted, never sent again" : "re-run with the same key"}`, async () => {
      const o = await withSlot(() => runCase(spec));
      const why = `${o.events.map(describeEvent).join("\n")}\n--- restarted wrangler ---\n${o.logs.slice(-3000)}`;
      const call = o.events.find((e) => e.content?.type === "functionCall")!.content as { callId: string };
      const dispatches = o.events.filter((e) => e.actions?.toolDispatch?.callId === call.callId);
      expect(dispatches, why).toHaveLength(1);
      const dispatch = dispatches[0]!.actions!.toolDispatch!;
      expect(dispatch, why).toMatchObject({ tool: spec.tool, effect: spec.effect });
      expect(dispatch.idempotencyKey).toBe(keyFor(o.sessionId, call.callId));

      // At the kill: dispatched, no outcome; F4 had sent nothing, F5 and F6 had sent the call once.
      expect(
        o.preKill.some((e) => e.actions?.toolDispatch?.callId === call.callId),
        why,
      ).toBe(true);
      expect(
        o.preKill.some((e) => e.content?.type === "functionResponse"),
        why,
      ).toBe(false);
      expect(o.hitsAtKill, why).toBe(spec.kill === "F4" ? 0 : 1);

      const responses = o.events.filter(
        (e): e is Event & { content: { type: "functionResponse"; status: string; callId: string } } =>
          e.content?.type === "functionResponse" && e.content.callId === call.callId,
      );
      expect(responses, why).toHaveLength(1);
      const response = responses[0]!;
      const expectedCalls = EXPECTED_CALLS[spec.effect][spec.kill];
      expect(o.keys, why).toHaveLength(expectedCalls);
      // Every call the server saw carried the key recorded at dispatch.
      for (const key of o.keys) expect(key, why).toBe(dispatch.idempotencyKey);
      if (spec.effect === "write") {
        expect(response.content.status, why).toBe("interrupted");
        expect(response.actions?.toolRecovery).toEqual({ callId: call.callId, strategy: "interrupted" });
        expect(o.final.recoveryNotice?.needsReview, why).toEqual([call.callId]);
      } else {
        expect(response.content.status, why).toBe("ok");
        expect(response.actions?.toolRecovery).toEqual({ callId: call.callId, strategy: "rerun" });
        expect(o.final.recoveryNotice?.rerun, why).toEqual([call.callId]);
        // The answer is the server's answer to the re-run.
        expect((response.content as { response: { n: number } }).response.n, why).toBe(expectedCalls);
      }
      expect(o.final).toMatchObject({ openTurn: false, status: "idle" });
      expect(verifyExportIndependently(o.exportNdjson).ok).toBe(true);
      rows.push({
        case: spec.label,
        callsSeen: o.keys.length,
        keys: o.keys,
        sameKey: o.keys.every((k) => k === dispatch.idempotencyKey),
        status: response.content.status,
        toolRecovery: response.actions?.toolRecovery?.strategy ?? null,
      });
    }, 600_000);
  }
});
