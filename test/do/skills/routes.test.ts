/**
 * docs/API.md#skills over HTTP: a principal's skills are created (201) and replaced (200),
 * listed and read; every kind of bad input is 400 in the contract's shape with nothing stored;
 * a deployment skill's name is 409; another principal's skill is 404 to read and to delete.
 */
import { describe, expect, it } from "vitest";
import { SKILL_LIMITS } from "../../../src/contract";
import { api, expectError, OTHER_TOKEN, TOKEN } from "../helpers";
import { HOUSE_STYLE } from "./worker";

const md = (name: string, description = `About ${name}.`, body = "Steps.\n") =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
const put = (name: string, json: unknown, token = TOKEN) => api(`/v1/skills/${name}`, { method: "PUT", json, token });
const list = async (token = TOKEN) => (await api("/v1/skills", { token })).body.skills as { name: string }[];

describe("a principal's skills", () => {
  it("are created (201), replaced (200), listed, read and deleted", async () => {
    const created = await put("triage", { skill: md("triage"), files: { "ref/steps.md": "1. look" } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      name: "triage",
      description: "About triage.",
      source: "principal",
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const replaced = await put("triage", { skill: md("triage", "Triage v2.") });
    expect(replaced.status).toBe(200);
    expect(replaced.body.digest).not.toBe(created.body.digest);

    const all = (await api("/v1/skills")).body;
    expect(all.skills).toContainEqual({ ...replaced.body });
    expect(all.skills).toContainEqual({
      name: "house-style",
      description: "Our style.",
      source: "deployment",
      digest: expect.any(String),
    });
    const one = await api("/v1/skills/triage");
    expect(one.body).toEqual({ ...replaced.body, skill: md("triage", "Triage v2."), files: {} });
    expect((await api("/v1/skills/house-style")).body).toMatchObject({ source: "deployment", skill: HOUSE_STYLE });

    expect((await api("/v1/skills/triage", { method: "DELETE" })).status).toBe(204);
    expectError(await api("/v1/skills/triage"), 404, "not_found");
    expectError(await api("/v1/skills/triage", { method: "DELETE" }), 404, "not_found");
    expect((await list()).map((s) => s.name)).not.toContain("triage");
  });

  const files = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}.md`, "x"]));
  it.each([
    ["no front matter", "bad-a", { skill: "# just markdown" }],
    ["invalid YAML", "bad-b", { skill: "---\nname: [bad-b\ndescription: d\n---\n" }],
    ["no description", "bad-c", { skill: "---\nname: bad-c\n---\n" }],
    ["a description over 1,024 characters", "bad-d", { skill: md("bad-d", "d".repeat(1025)) }],
    ["a bad name in the front matter", "bad-e", { skill: md("Bad_E") }],
    ["a name that is not the path's", "bad-f", { skill: md("other") }],
    ["a bad name in the path", "Bad_Name", { skill: md("Bad_Name") }],
    ["a name of 65 characters", "a".repeat(65), { skill: md("a".repeat(65)) }],
    ["too many files", "bad-g", { skill: md("bad-g"), files: files(SKILL_LIMITS.files + 1) }],
    ["over 1 MiB in all", "bad-h", { skill: md("bad-h"), files: { "big.txt": "x".repeat(SKILL_LIMITS.bytes) } }],
    ["a path outside the skill", "bad-i", { skill: md("bad-i"), files: { "../x.md": "x" } }],
    ["an absolute path", "bad-j", { skill: md("bad-j"), files: { "/x.md": "x" } }],
    ["a file that is not text", "bad-k", { skill: md("bad-k"), files: { "x.md": 1 } }],
    ["no skill", "bad-l", { files: {} }],
    ["an unknown field", "bad-m", { skill: md("bad-m"), extra: true }],
  ])("refuse %s with 400 and store nothing", async (_what, name, body) => {
    const before = await list();
    expectError(await put(name, body), 400, "bad_request");
    expect(await list()).toEqual(before);
  });

  it("refuse a body that is not JSON with 400, and one over the body limit with 413", async () => {
    const before = await list();
    expectError(await api("/v1/skills/bad-n", { method: "PUT", body: "{not json" }), 400, "bad_request");
    const huge = JSON.stringify({ skill: md("bad-o"), files: { "a.txt": "x".repeat(5 * 1_048_576) } });
    expectError(await api("/v1/skills/bad-o", { method: "PUT", body: huge }), 413, "payload_too_large");
    expect(await list()).toEqual(before);
  });

  it("may not take a deployment skill's name (409), nor delete one", async () => {
    expectError(await put("house-style", { skill: md("house-style") }), 409, "conflict");
    expectError(await api("/v1/skills/house-style", { method: "DELETE" }), 409, "conflict");
    expect((await api("/v1/skills/house-style")).body.source).toBe("deployment");
  });

  it("are another principal's 404: listed, read and deleted by their owner only", async () => {
    expect((await put("a-private", { skill: md("a-private", "A's secret way.") })).status).toBe(201);
    expect((await list(OTHER_TOKEN)).map((s) => s.name)).not.toContain("a-private");
    expectError(await api("/v1/skills/a-private", { token: OTHER_TOKEN }), 404, "not_found");
    expectError(await api("/v1/skills/a-private", { method: "DELETE", token: OTHER_TOKEN }), 404, "not_found");
    // B may have a skill of the same name: its own, and A's is unchanged.
    expect((await put("a-private", { skill: md("a-private", "B's way.") }, OTHER_TOKEN)).status).toBe(201);
    expect((await api("/v1/skills/a-private")).body.description).toBe("A's secret way.");
    expect((await api("/v1/skills/a-private", { token: OTHER_TOKEN })).body.description).toBe("B's way.");
  });

  it(`hold at most ${SKILL_LIMITS.perPrincipal} per principal: one more is 409, a replacement is not`, async () => {
    const token = OTHER_TOKEN;
    const have = (await list(token)).filter((s) => (s as { source?: string }).source === "principal").length;
    for (let i = have; i < SKILL_LIMITS.perPrincipal; i++)
      expect((await put(`n-${i}`, { skill: md(`n-${i}`) }, token)).status).toBe(201);
    expectError(await put("one-more", { skill: md("one-more") }, token), 409, "conflict");
    expectError(await api("/v1/skills/one-more", { token }), 404, "not_found");
    expect(
      (
        await put(
          `n-${SKILL_LIMITS.perPrincipal - 1}`,
          { skill: md(`n-${SKILL_LIMITS.perPrincipal - 1}`, "v2") },
          token,
        )
      ).status,
    ).toBe(200);
  });

  it("answers 405 for other methods and 401 without a token", async () => {
    expectError(await api("/v1/skills", { method: "POST", json: {} }), 405, "method_not_allowed");
    expectError(await api("/v1/skills", { token: null }), 401, "unauthorized");
  });
});
