/**
 * docs/API.md#skills end to end through the Worker and real session objects with the demo
 * model: a principal's skill, put over HTTP, is shown to that principal's sessions and loaded by
 * name; another principal's session is never shown it nor can load it; `SessionOptions.skills`
 * is checked at the edge.
 */

import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import NOTES from "../../../examples/skills/release-notes/SKILL.md";
import TEMPLATE from "../../../examples/skills/release-notes/template.md";
import { api, createSession, expectError, OTHER_TOKEN, TOKEN } from "../helpers";

async function runTurn(text: string, token: string, options: unknown = {}) {
  const r = await api("/v1/sessions", { method: "POST", json: options, token });
  expect(r.status).toBe(201);
  const id = r.body.id as string;
  expect((await api(`/v1/sessions/${id}/messages`, { method: "POST", json: { text }, token })).status).toBe(202);
  const stub = env.SESSIONS.get(env.SESSIONS.idFromString(id));
  for (let i = 0; i < 100; i++) {
    if (await runDurableObjectAlarm(stub)) continue;
    if ((await api(`/v1/sessions/${id}`, { token })).body.openTurn === false) break;
  }
  const events = (await api(`/v1/sessions/${id}/events?limit=1000`, { token })).body.events as any[];
  const context = (await api(`/v1/sessions/${id}/context`, { token })).body;
  return { id, events, context };
}

describe("skills in a session (demo model)", () => {
  it("a principal's skill is loaded by name and changes the answer; another principal never sees it", async () => {
    const put = await api("/v1/skills/release-notes", {
      method: "PUT",
      json: { skill: NOTES, files: { "template.md": TEMPLATE } },
    });
    expect([200, 201]).toContain(put.status);

    const a = await runTurn("Use the release-notes skill: added skills you can load by name", TOKEN);
    const response = a.events.find((e) => e.content?.type === "functionResponse")?.content;
    expect(response).toMatchObject({ name: "load_skill", status: "ok", response: { name: "release-notes" } });
    expect(response.response.content).toContain("# Release notes");
    expect(response.response.files).toEqual(["template.md"]);
    const answer = a.events.findLast((e) => e.author === "model" && e.content?.type === "text")?.content.text;
    expect(answer).toContain("Following the release-notes skill");
    expect(answer).toContain("## Added\n- added skills you can load by name");
    const set = a.events.find((e) => e.actions?.stateDelta?.skillset)?.actions.stateDelta.skillset;
    expect(set.skills).toEqual([
      { name: "house-style", source: "deployment", digest: expect.any(String) },
      { name: "release-notes", source: "principal", digest: put.body.digest },
    ]);

    const b = await runTurn("Use the release-notes skill: anything", OTHER_TOKEN);
    const bResponse = b.events.find((e) => e.content?.type === "functionResponse")?.content;
    expect(bResponse).toMatchObject({ name: "load_skill", status: "error", response: { code: "unknown_skill" } });
    expect(JSON.stringify(b.events)).not.toContain("Release notes");
    expect(JSON.stringify(b.events)).not.toContain(put.body.digest);
    expect(JSON.stringify(b.context)).not.toContain("release-notes:");
    expect(JSON.stringify(b.context)).toContain("house-style: Our style.");
  });

  it("checks SessionOptions.skills at the edge", async () => {
    expectError(await api("/v1/sessions", { method: "POST", json: { skills: ["Not_A_Name"] } }), 400, "bad_request");
    expectError(await api("/v1/sessions", { method: "POST", json: { skills: ["a", "a"] } }), 400, "bad_request");
    expectError(await api("/v1/sessions", { method: "POST", json: { skills: "house-style" } }), 400, "bad_request");
    await createSession({ skills: ["house-style", "not-yet-written"] });
  });
});
