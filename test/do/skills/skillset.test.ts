/**
 * docs/API.md#skills inside a session: the skillset is recorded as a hidden `stateDelta.skillset`
 * before a turn's first model request whenever its digest changes (once per change), a turn keeps
 * its set until it closes, `load_skill` answers the version of the turn's set, and a request or
 * a `load_skill` rebuilt by a fresh runtime (after an eviction) is byte for byte the first.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { assembleContext } from "../../../src/context";
import { canonical } from "../../../src/contract";
import { buildDeploymentSkills, installDeploymentSkills } from "../../../src/features";
import type { SkillsObject } from "../../../src/features/objects";
import { checkSkill } from "../../../src/features/skills/format";
import type { Event } from "../../../src/log";
import type { ModelConfig, ModelPart, ModelProvider, ModelRequest } from "../../../src/model/types";
import { requestDigest } from "../../../src/runtime/drafts";
import { withSession } from "../context-harness";
import { HOUSE_STYLE } from "./worker";

const MODEL: ModelConfig = { provider: "openai", name: "scripted", contextWindow: 128_000, maxOutputTokens: 4096 };
const md = (name: string, description: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;

beforeAll(() => {
  installDeploymentSkills(buildDeploymentSkills([{ name: "house-style", skill: HOUSE_STYLE }]));
});

let principals = 0;
function principal() {
  const id = `skills-test-${Date.now()}-${principals++}`;
  // A stub per call: one made outside a session object's context cannot be used inside it.
  const stub = () =>
    env.SKILLS!.get(env.SKILLS!.idFromName(`principal:${id}`)) as unknown as DurableObjectStub<SkillsObject>;
  const put = async (name: string, description: string, body: string, files?: Record<string, string>) => {
    const c = checkSkill({ skill: md(name, description, body), ...(files ? { files } : {}) }, name);
    if (!c.ok) throw new Error(c.message);
    const r = await stub().put(c.value);
    if (!r.ok) throw new Error(r.error.message);
    return c.value.digest;
  };
  return { id, stub, put };
}

/** A model that calls load_skill once per turn (with `args`), then answers; `before` runs before a step. */
function loadingModel(args: Record<string, unknown>, before?: (n: number) => Promise<void>) {
  const sent: ModelRequest[] = [];
  let n = 0;
  let calls = 0;
  const provider: ModelProvider = {
    name: "openai",
    async *stream(request: ModelRequest): AsyncGenerator<ModelPart> {
      sent.push(structuredClone(request));
      await before?.(n++);
      const last = request.messages.at(-1)!;
      if (last.role === "user") yield { type: "tool-call", callId: `ls-${++calls}`, name: "load_skill", args };
      else yield { type: "text-delta", text: "done" };
      yield { type: "finish", reason: last.role === "user" ? "tool-calls" : "stop" };
    },
  };
  return { provider, sent };
}

const skillsets = (events: Event[]) => events.filter((e) => e.actions?.stateDelta?.skillset);
const responses = (events: Event[]) =>
  events.flatMap((e) =>
    e.content?.type === "functionResponse" ? [e.content as { status: string; response: Record<string, unknown> }] : [],
  );
const systemOf = (r: ModelRequest) => r.messages[0]!.content as string;

describe("a session's skillset", () => {
  it("is recorded once per digest change, kept by a turn until it closes, and load_skill answers the turn's version", async () => {
    const p = principal();
    const v1 = await p.put("triage", "How we triage a CI failure.", "# Triage v1\nRead the log first.\n", {
      "ref/checklist.md": "- [ ] flaky?",
    });
    // During the first turn's first model call, the principal replaces the skill.
    const { provider, sent } = loadingModel({ name: "triage" }, async (n) => {
      if (n === 0) await p.put("triage", "Triage, second edition.", "# Triage v2\n");
    });
    await withSession({ provider, model: MODEL, principal: p.id, env: env as never }, async (h) => {
      await h.runTurn("CI is red");
      const events = h.events();
      const [first, ...more] = skillsets(events);
      expect(more).toEqual([]);
      expect(first!.modelVisibility).toBe("hidden");
      expect(first!.seq).toBeLessThan(events.find((e) => e.actions?.modelRequest)!.seq);
      const set = first!.actions!.stateDelta!.skillset as { digest: string; skills: unknown[] };
      expect(set.skills).toEqual([
        { name: "house-style", source: "deployment", digest: expect.stringMatching(/^[0-9a-f]{64}$/) },
        { name: "triage", source: "principal", digest: v1 },
      ]);
      // The turn kept its set: both calls show v1's description, load_skill answered v1.
      expect(sent).toHaveLength(2);
      for (const r of sent) {
        expect(systemOf(r)).toContain("- house-style: Our style.");
        expect(systemOf(r)).toContain("- triage: How we triage a CI failure.");
        expect(r.tools.map((t) => t.name)).toContain("load_skill");
      }
      expect(responses(events)).toEqual([
        {
          type: "functionResponse",
          callId: expect.any(String),
          name: "load_skill",
          status: "ok",
          response: {
            name: "triage",
            digest: v1,
            files: ["ref/checklist.md"],
            content: "# Triage v1\nRead the log first.\n",
          },
        },
      ]);

      // The next turn records the changed set once, and answers v2.
      await h.runTurn("again");
      expect(skillsets(h.events())).toHaveLength(2);
      expect(systemOf(sent.at(-1)!)).toContain("- triage: Triage, second edition.");
      expect(responses(h.events()).at(-1)!.response.content).toBe("# Triage v2\n");
      // Nothing changed: nothing recorded.
      await h.runTurn("and again");
      expect(skillsets(h.events())).toHaveLength(2);
      // A deleted skill: the set changes once more, and the model is no longer shown it.
      await p.stub().delete("triage");
      await h.runTurn("once more");
      const last = skillsets(h.events()).at(-1)!.actions!.stateDelta!.skillset as { skills: { name: string }[] };
      expect(skillsets(h.events())).toHaveLength(3);
      expect(last.skills.map((s) => s.name)).toEqual(["house-style"]);
      expect(systemOf(sent.at(-1)!)).not.toContain("triage");
      expect(responses(h.events()).at(-1)).toMatchObject({ status: "error", response: { code: "unknown_skill" } });
    });
  });

  it("is restricted by SessionOptions.skills, and a session shown no skill records none and has no load_skill", async () => {
    const p = principal();
    await p.put("triage", "Triage.", "x\n");
    const { provider } = loadingModel({ name: "house-style" });
    await withSession(
      { provider, model: MODEL, principal: p.id, env: env as never, options: { skills: ["triage"] } },
      async (h) => {
        await h.runTurn("go");
        const set = skillsets(h.events())[0]!.actions!.stateDelta!.skillset as { skills: { name: string }[] };
        expect(set.skills.map((s) => s.name)).toEqual(["triage"]);
        expect(responses(h.events())[0]).toMatchObject({ status: "error", response: { code: "unknown_skill" } });
      },
    );
    // `skills: []`, or `tools` named (load_skill is not one of GET /v1/tools): no skills at all.
    for (const options of [{ skills: [] }, { tools: ["read_file"] }]) {
      const none = loadingModel({ name: "triage" });
      await withSession(
        { provider: none.provider, model: MODEL, principal: p.id, env: env as never, options },
        async (h) => {
          await h.runTurn("go");
          expect(skillsets(h.events())).toEqual([]);
          expect(none.sent[0]!.tools.map((t) => t.name)).not.toContain("load_skill");
          expect(systemOf(none.sent[0]!)).not.toContain("## Skills");
        },
      );
    }
  });

  it("rebuilds a request, and answers load_skill again, byte for byte after an eviction, whatever the principal changed", async () => {
    const p = principal();
    await p.put("triage", "Triage.", `# Triage\n${"step\n".repeat(20_000)}`);
    const { provider, sent } = loadingModel({ name: "triage" });
    const opts = { provider, model: MODEL, principal: p.id, env: env as never, offloadThresholdBytes: 200_000 };
    await withSession(opts, async (h) => {
      await h.runTurn("go");
      const requests = h.events().filter((e) => e.actions?.modelRequest);
      const response = responses(h.events())[0]!;
      expect(response.status).toBe("ok");
      expect(response.response.next).toBeGreaterThan(0);
      // The principal changes everything; a fresh runtime over the same storage rebuilds from the log.
      await p.put("triage", "Something else.", "# Other\n");
      await p.put("extra", "Extra.", "x\n");
      const again = h.reopen();
      for (const [i, e] of requests.entries()) {
        const recorded = e.actions!.modelRequest!;
        const rebuilt = assembleContext(again.deps, again.contextInput(MODEL), null, recorded.throughSeq).ctx;
        expect(requestDigest(rebuilt)).toBe(recorded.requestDigest);
        expect(JSON.stringify(rebuilt.messages)).toBe(JSON.stringify(sent[i]!.messages));
        expect(JSON.stringify(rebuilt.tools)).toBe(JSON.stringify(sent[i]!.tools));
      }
      // load_skill run again (as recovery re-runs a read) answers the same bytes.
      const tool = again.toolFor("load_skill")!;
      const rerun = await tool.run({ name: "triage" }, {
        blobs: h.store.blobs,
      } as unknown as Parameters<typeof tool.run>[1]);
      expect(canonical(rerun.response)).toBe(canonical(response.response));
    });
  });
});
