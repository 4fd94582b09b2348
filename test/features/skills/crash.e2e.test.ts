/**
 * `load_skill` after a crash (docs/API.md#skills): a real `wrangler dev` is killed with SIGKILL
 * at F4 (dispatched, not run) and F6 (answered, outcome not committed), restarted on the same
 * dir with the principal's skill replaced meanwhile, and given no request. `load_skill` is a
 * `read`: it is run again and answers the version of the turn's recorded skillset, byte for byte
 * the first version, from the session's own blobs. (F5, a request in flight, does not apply:
 * load_skill sends none.)
 *
 *   npx vitest run --project e2e test/e2e/crash-skills.test.ts
 */
import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { limiter } from "../../e2e/crash/run-case";
import { createApi, describeEvent, verifyExportIndependently } from "../../e2e/harness/api";
import { scriptedAgent, startFakeOpenAI } from "../../e2e/harness/fake-openai";
import { makePersistDir, startFailpointSink, startWrangler, type Wrangler } from "../../e2e/harness/wrangler";

const TOKEN = "crash-skills-token";
const V1 = "---\nname: triage\ndescription: How we triage a CI failure.\n---\n# Triage v1\nRead the log first.\n";
const V2 = "---\nname: triage\ndescription: Triage, second edition.\n---\n# Triage v2\n";
const withSlot = limiter(Math.max(1, Number(process.env.CRASH_CONCURRENCY) || 2));

async function putSkill(url: string, skill: string) {
  const res = await fetch(`${url}/v1/skills/triage`, {
    method: "PUT",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ skill }),
  });
  if (res.status !== 200 && res.status !== 201) throw new Error(`PUT skill: ${res.status} ${await res.text()}`);
}

async function runCase(kill: "F4" | "F6") {
  const cleanups: (() => unknown)[] = [];
  let worker: Wrangler | undefined;
  try {
    const fake = await startFakeOpenAI(
      scriptedAgent([{ toolCalls: [{ name: "load_skill", args: { name: "triage" } }] }, { text: "done" }]),
    );
    cleanups.push(() => fake.close());
    const sink = await startFailpointSink();
    cleanups.push(() => sink.close());
    const persistTo = makePersistDir("hw-crash-skills-");
    cleanups.push(() => rmSync(persistTo, { recursive: true, force: true }));
    const vars = {
      API_TOKENS: TOKEN,
      MODEL_PROVIDER: "openai",
      MODEL_BASE_URL: fake.url,
      MODEL_API_KEY: "x",
      MODEL_NAME: "fake-model",
    };
    worker = await startWrangler({ persistTo, vars: { ...vars, HW_FAILPOINT: kill, HW_FAILPOINT_URL: sink.url } });
    let api = createApi(worker.url, TOKEN);
    await putSkill(worker.url, V1);
    const session = await api.createSession({});
    await api.sendMessage(session.id, "CI is red: use the triage skill");
    await sink.waitFor(kill, 60_000);
    const preKill = await api.allEvents(session.id);
    await worker.kill9();

    // Restarted; the principal replaces the skill before (or while) the session recovers.
    worker = await startWrangler({ persistTo, vars });
    api = createApi(worker.url, TOKEN);
    await putSkill(worker.url, V2);
    const { session: final, events } = await api.waitForIdle(session.id, { timeoutMs: 90_000 });
    return { preKill, events, final, exportNdjson: await api.exportNdjson(session.id), logs: worker.logs() };
  } finally {
    await worker?.stop().catch(() => undefined);
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
  }
}

describe.concurrent("load_skill: kill -9 at F4 and F6, re-run answers the turn's version", () => {
  for (const kill of ["F4", "F6"] as const) {
    it(`${kill}: run again, the recorded version's bytes`, async () => {
      const o = await withSlot(() => runCase(kill));
      const why = `${o.events.map(describeEvent).join("\n")}\n--- restarted wrangler ---\n${o.logs.slice(-3000)}`;
      expect(
        o.preKill.some((e) => e.actions?.toolDispatch?.tool === "load_skill"),
        why,
      ).toBe(true);
      expect(
        o.preKill.some((e) => e.content?.type === "functionResponse"),
        why,
      ).toBe(false);
      const set = o.events.filter((e) => e.actions?.stateDelta?.skillset);
      expect(set, why).toHaveLength(1);
      const responses = o.events.filter((e) => e.content?.type === "functionResponse");
      expect(responses, why).toHaveLength(1);
      const response = responses[0]!;
      expect(response.content, why).toMatchObject({
        name: "load_skill",
        status: "ok",
        response: { name: "triage", content: "# Triage v1\nRead the log first.\n" },
      });
      expect(response.actions?.toolRecovery?.strategy, why).toBe("rerun");
      expect(o.final).toMatchObject({ openTurn: false, status: "idle" });
      expect(verifyExportIndependently(o.exportNdjson).ok).toBe(true);
    }, 300_000);
  }
});
