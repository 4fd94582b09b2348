/**
 * Questions from MCP servers through a real `wrangler dev` (docs/API.md#questions-from-mcp-servers):
 * the route's answers to bad input (nothing written), and the question surviving `kill -9`: a
 * 2026-07-28 server gets the answer given after the restart; a 2025-11-25 server's stream is lost
 * with the process, so its call follows its effect (a `write` is interrupted).
 */
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createApi, type Event } from "../../e2e/harness/api";
import { makePersistDir, startWrangler, type Wrangler } from "../../e2e/harness/wrangler";
import { mcp1Elicit } from "../../fakes/mcp1-elicit";
import { mcp2Server } from "../../fakes/mcp2-server";
import { serveFetch } from "../../fakes/serve-fetch";

const TOKEN = "questions-token-a";
const OTHER = "questions-token-b";
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
});

type Pending = { requestId: string; callId: string; server: string; message: string; stream?: true };

async function setup() {
  const modern = mcp2Server();
  const legacy = mcp1Elicit();
  const served = await serveFetch({ "/modern": modern.fetch, "/legacy": legacy.fetch });
  cleanups.push(() => served.close());
  const persistTo = makePersistDir("hw-mcp-questions-");
  cleanups.push(() => rmSync(persistTo, { recursive: true, force: true }));
  const vars = {
    API_TOKENS: `${TOKEN},${OTHER}`,
    HTTP_TOOL_ALLOWED_HOSTS: "127.0.0.1:*",
    MCP_SERVERS: JSON.stringify([
      { name: "modern", url: `${served.url}/modern`, timeoutMs: 20_000 },
      { name: "legacy", url: `${served.url}/legacy`, timeoutMs: 120_000 },
    ]),
  };
  const worker = await startWrangler({ persistTo, vars });
  return { modern, legacy, vars, worker };
}

const answered = (events: Event[]) => events.filter((e) => e.actions?.stateDelta?.inputAnswered);

describe.concurrent("questions from MCP servers under wrangler", () => {
  it("bad answers write nothing; the question survives kill -9 and the answer reaches a 2026-07-28 server", async () => {
    const { modern, vars, worker: first } = await setup();
    let worker: Wrangler = first;
    cleanups.push(() => worker.stop());
    let api = createApi(worker.url, TOKEN);

    const tools = (await (await api.raw("GET", "/v1/tools")).json()) as {
      servers: { server: string; protocolVersion: string }[];
    };
    expect(tools.servers).toEqual(
      expect.arrayContaining([
        { server: "modern", protocolVersion: "2026-07-28" },
        { server: "legacy", protocolVersion: "2025-11-25" },
      ]),
    );

    const session = await api.createSession({ title: "questions" });
    await api.sendMessage(session.id, "use modern__confirm");
    const waiting = await api.waitFor(session.id, (s) => (s.status as string) === "waiting_input");
    const [pending] = (waiting.session as unknown as { pendingInputs: Pending[] }).pendingInputs;
    expect(pending).toMatchObject({ server: "modern", message: expect.stringMatching(/^Approve /) });
    const path = `/v1/sessions/${session.id}/inputs/${pending!.requestId}`;
    const head = waiting.session.highWater;

    const status = async (p: string, body: unknown, token = TOKEN) =>
      (await createApi(worker.url, token).raw("POST", p, body)).status;
    expect(await status(path, { action: "accept", content: { approve: "yes" } })).toBe(400);
    expect(await status(path, { action: "accept", content: { approve: true, extra: 1 } })).toBe(400);
    expect(await status(path, { action: "maybe" })).toBe(400);
    expect(await status(`/v1/sessions/${session.id}/inputs/inp_000000000000000000000000`, { action: "cancel" })).toBe(
      404,
    );
    expect(await status(path, { action: "cancel" }, OTHER)).toBe(404);
    expect((await api.getSession(session.id)).highWater).toBe(head);

    await worker.kill9();
    worker = await startWrangler({ ...worker.options, vars, port: undefined, inspectorPort: undefined });
    api = createApi(worker.url, TOKEN);
    const after = (await api.getSession(session.id)) as unknown as { status: string; pendingInputs: Pending[] };
    expect(after.status).toBe("waiting_input");
    expect(after.pendingInputs.map((p) => p.requestId)).toEqual([pending!.requestId]);

    expect(await status(path, { action: "accept", content: { approve: true, note: "after restart" } })).toBe(200);
    expect(await status(path, { action: "decline" })).toBe(409);
    const done = await api.waitForIdle(session.id);
    expect(answered(done.events)).toHaveLength(1);
    expect(modern.calls.at(-1)).toMatchObject({
      tool: "confirm",
      era: "modern",
      answers: { approval: { action: "accept", content: { approve: true, note: "after restart" } } },
    });
    const response = done.events.find((e) => e.content?.type === "functionResponse")?.content as {
      status: string;
      response: unknown;
    };
    expect(response).toMatchObject({ status: "ok", response: 'accept: {"approve":true,"note":"after restart"}' });
  });

  it("a 2025-11-25 server's question is lost with its stream on kill -9: the write call is interrupted", async () => {
    const { legacy, vars, worker: first } = await setup();
    let worker: Wrangler = first;
    cleanups.push(() => worker.stop());
    let api = createApi(worker.url, TOKEN);
    const session = await api.createSession({ title: "legacy question" });
    await api.sendMessage(session.id, "use legacy__confirm");
    const waiting = await api.waitFor(session.id, (s) => (s.status as string) === "waiting_input");
    const [pending] = (waiting.session as unknown as { pendingInputs: Pending[] }).pendingInputs;
    expect(pending).toMatchObject({ server: "legacy", stream: true });
    expect(legacy.calls).toHaveLength(1);

    await worker.kill9();
    worker = await startWrangler({ ...worker.options, vars, port: undefined, inspectorPort: undefined });
    api = createApi(worker.url, TOKEN);
    const done = await api.waitForIdle(session.id, { timeoutMs: 90_000 });
    const response = done.events.find((e) => e.content?.type === "functionResponse")?.content as { status: string };
    expect(response.status).toBe("interrupted");
    expect((done.session as unknown as { pendingInputs: Pending[] }).pendingInputs).toEqual([]);
    const late = await api.raw("POST", `/v1/sessions/${session.id}/inputs/${pending!.requestId}`, { action: "cancel" });
    expect(late.status).toBe(409);
    expect(legacy.calls).toHaveLength(1);
  });
});
