/**
 * Recovery of the memory tools (docs/API.md#memory): a real `wrangler dev` is killed with SIGKILL
 * at F4 (T1 committed, tool not started), F5 (the RPC to the memory object in flight) and F6 (the
 * tool answered, T2 not committed), restarted on the same dir, and given no request. `remember`
 * is `idempotent`: its re-run carries the key recorded at dispatch, so the memory holds exactly one
 * entry whatever the kill point; `recall` is `read`: it is re-run and answers the entry.
 *
 *   npx vitest run --project e2e test/e2e/crash-memory.test.ts
 *
 * The table (tool × kill point → entries afterwards, the response) is printed and written to
 * test-results/crash-memory-table.json.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { limiter } from "../../e2e/crash/run-case";
import { createApi, describeEvent, verifyExportIndependently } from "../../e2e/harness/api";
import { scriptedAgent, startFakeOpenAI } from "../../e2e/harness/fake-openai";
import {
  makePersistDir,
  REPO_ROOT,
  startFailpointSink,
  startWrangler,
  type Wrangler,
} from "../../e2e/harness/wrangler";

type Kill = "F4" | "F5" | "F6";
type Case = { tool: "remember" | "recall"; kill: Kill };
const TOKEN = "crash-memory-token";
const CASES: Case[] = (["remember", "recall"] as const).flatMap((tool) =>
  (["F4", "F5", "F6"] as const).map((kill) => ({ tool, kill })),
);
const ARGS = {
  remember: { text: "our fiscal year starts in April", pinned: true },
  recall: { query: "fiscal year" },
};
type Row = { case: string; entries: number; status: string; toolRecovery: string | null; answer: string };
const rows: Row[] = [];
const withSlot = limiter(Math.max(1, Number(process.env.CRASH_CONCURRENCY) || 2));

async function runCase(spec: Case) {
  const cleanups: (() => unknown)[] = [];
  let worker: Wrangler | undefined;
  try {
    const fake = await startFakeOpenAI(
      scriptedAgent([{ toolCalls: [{ name: spec.tool, args: ARGS[spec.tool] }] }, { text: "done" }]),
    );
    cleanups.push(() => fake.close());
    const sink = await startFailpointSink();
    cleanups.push(() => sink.close());
    const persistTo = makePersistDir("hw-crash-memory-");
    cleanups.push(() => rmSync(persistTo, { recursive: true, force: true }));
    const vars = {
      API_TOKENS: TOKEN,
      MODEL_PROVIDER: "openai",
      MODEL_BASE_URL: fake.url,
      MODEL_API_KEY: "x",
      MODEL_NAME: "fake-model",
    };
    worker = await startWrangler({ persistTo, vars: { ...vars, HW_FAILPOINT: spec.kill, HW_FAILPOINT_URL: sink.url } });
    let api = createApi(worker.url, TOKEN);
    // recall has something to find: an entry stored through the API (no tool step: no failpoint).
    if (spec.tool === "recall") {
      const r = await api.raw("POST", "/v1/memory", { text: "our fiscal year starts in April" });
      expect(r.status).toBe(201);
    }
    const session = await api.createSession({});
    await api.sendMessage(session.id, `use ${spec.tool}`);
    await sink.waitFor(spec.kill, 60_000);
    const preKill = await api.allEvents(session.id);
    await worker.kill9();

    worker = await startWrangler({ persistTo, vars });
    api = createApi(worker.url, TOKEN);
    const { session: final, events } = await api.waitForIdle(session.id, { timeoutMs: 90_000 });
    const memory = (await (await api.raw("GET", "/v1/memory?limit=100")).json()) as {
      entries: { id: string; text: string }[];
    };
    return { preKill, final, events, memory, exportNdjson: await api.exportNdjson(session.id), logs: worker.logs() };
  } finally {
    await worker?.stop().catch(() => undefined);
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
  }
}

describe.concurrent("memory tools: kill -9 at F4, F5, F6", () => {
  afterAll(() => {
    if (rows.length === 0) return;
    rows.sort((a, b) => a.case.localeCompare(b.case));
    console.log(
      [
        "| case | entries afterwards | response | toolRecovery |",
        "| --- | --- | --- | --- |",
        ...rows.map((r) => `| ${r.case} | ${r.entries} | ${r.status}: ${r.answer} | ${r.toolRecovery ?? "—"} |`),
      ].join("\n"),
    );
    const dir = join(REPO_ROOT, "test-results");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "crash-memory-table.json"), `${JSON.stringify(rows, null, 2)}\n`);
  });

  for (const spec of CASES) {
    it(`${spec.tool} ${spec.kill}: re-run, exactly one entry`, async () => {
      const o = await withSlot(() => runCase(spec));
      const why = `${o.events.map(describeEvent).join("\n")}\n--- restarted wrangler ---\n${o.logs.slice(-3000)}`;
      const call = o.events.find((e) => e.content?.type === "functionCall")!.content as { callId: string };
      const dispatches = o.events.filter((e) => e.actions?.toolDispatch?.callId === call.callId);
      expect(dispatches, why).toHaveLength(1);
      expect(dispatches[0]!.actions!.toolDispatch, why).toMatchObject({
        tool: spec.tool,
        effect: spec.tool === "remember" ? "idempotent" : "read",
      });
      expect(
        o.preKill.some((e) => e.content?.type === "functionResponse"),
        why,
      ).toBe(false);
      const responses = o.events.filter(
        (e) => e.content?.type === "functionResponse" && e.content.callId === call.callId,
      );
      expect(responses, why).toHaveLength(1);
      const response = responses[0]!;
      const content = response.content as { status: string; response: { id?: string; entries?: { text: string }[] } };
      expect(content.status, why).toBe("ok");
      expect(response.actions?.toolRecovery).toEqual({ callId: call.callId, strategy: "rerun" });
      expect(o.memory.entries, why).toHaveLength(1);
      expect(o.memory.entries[0]!.text).toBe("our fiscal year starts in April");
      if (spec.tool === "remember") expect(content.response.id).toBe(o.memory.entries[0]!.id);
      else expect(content.response.entries?.map((e) => e.text)).toEqual(["our fiscal year starts in April"]);
      expect(o.final).toMatchObject({ openTurn: false, status: "idle" });
      expect(verifyExportIndependently(o.exportNdjson).ok).toBe(true);
      rows.push({
        case: `${spec.tool} ${spec.kill}`,
        entries: o.memory.entries.length,
        status: content.status,
        toolRecovery: (response.actions?.toolRecovery as { strategy?: string } | undefined)?.strategy ?? null,
        answer: JSON.stringify(content.response).slice(0, 80),
      });
      // The time waiting for a slot counts: two cases run at once, each with two wrangler starts.
    }, 420_000);
  }
});
