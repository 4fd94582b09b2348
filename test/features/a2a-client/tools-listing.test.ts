/**
 * `GET /v1/tools` lists the A2A agents' tools (docs/API.md#tools, docs/API.md#a2a-agents): each
 * agent of `A2A_AGENTS` is `<name>__send` with source `a2a:<name>`, the agent's effect, its
 * description and input schema, after the static tools; a new session's `tools` and approval rules
 * may name it, and a name of no configured agent is still 400.
 */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/contract";
import { FEATURES } from "../../../src/features";
import { createApp } from "../../../src/http";
import { checkToolNames } from "../../../src/http/tools";

const TOKEN = "unit-token";
const agents = JSON.stringify([
  { name: "helper", url: "https://agent.example/.well-known/agent-card.json" },
  { name: "billing", url: "https://billing.example/card", effect: "idempotent" },
]);

type Listed = { name: string; source: string; effect: string; description: string; inputSchema: unknown };

async function list(env: Record<string, unknown>): Promise<Listed[]> {
  const res = await createApp(FEATURES).request("/v1/tools", { headers: { authorization: `Bearer ${TOKEN}` } }, {
    API_TOKENS: TOKEN,
    ...env,
  } as unknown as Env);
  expect(res.status).toBe(200);
  return ((await res.json()) as { tools: Listed[] }).tools;
}

describe("GET /v1/tools and the A2A agents", () => {
  it("lists each configured agent's tool with source a2a:<name>, its effect and input schema", async () => {
    const tools = await list({ A2A_AGENTS: agents });
    const remote = tools.filter((t) => t.source.startsWith("a2a:"));
    expect(remote.map((t) => [t.name, t.source, t.effect])).toEqual([
      ["helper__send", "a2a:helper", "write"],
      ["billing__send", "a2a:billing", "idempotent"],
    ]);
    expect(remote[0]!.description).toContain('"helper"');
    expect(remote[0]!.inputSchema).toMatchObject({
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    });
    // After the static tools, which stay as they were.
    const names = tools.map((t) => t.name);
    expect(names.indexOf("read_file")).toBeLessThan(names.indexOf("helper__send"));
    expect(tools.find((t) => t.name === "read_file")?.source).toBe("builtin");
  });

  it("lists none without A2A_AGENTS", async () => {
    const tools = await list({});
    expect(tools.some((t) => t.name.endsWith("__send") || t.source.startsWith("a2a:"))).toBe(false);
  });

  it("a new session may name an agent's tool in tools and approvals; another name is 400", async () => {
    createApp(FEATURES);
    const env = { API_TOKENS: TOKEN, A2A_AGENTS: agents } as unknown as Env;
    await expect(
      checkToolNames(env, "p", { tools: ["helper__send", "read_file"], approvals: [{ tool: "helper__send" }] }),
    ).resolves.toBeUndefined();
    for (const opts of [{ tools: ["other__send"] }, { approvals: [{ tool: "other__send" }] }]) {
      const err = await checkToolNames(env, "p", opts).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe("bad_request");
    }
    // Without the var the agent's tool is unknown.
    const none = await checkToolNames({ API_TOKENS: TOKEN } as unknown as Env, "p", { tools: ["helper__send"] }).catch(
      (e: unknown) => e,
    );
    expect((none as ApiError).code).toBe("bad_request");
  });
});
