/**
 * MCP tasks through a real `wrangler dev` killed with SIGKILL (docs/API.md#mcp-tasks): the task
 * server runs in this process and counts every `tools/call` and every task it creates. A call
 * answered with a task survives two kills (at F16, the task just recorded; then mid-wait after a
 * poll) and is called once; a task done whose outcome was not committed (F17) is recorded once
 * and not called again; a task that never ends is `remote_timeout` after `timeoutMs`, and the
 * server sees `tasks/cancel`.
 *
 *   npx vitest run --project e2e test/features/mcp-client/tasks.e2e.test.ts
 *
 * The crash table (kill points → calls, tasks, polls, response) is printed at the end.
 */
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createApi, type Event } from "../../e2e/harness/api";
import { makePersistDir, startFailpointSink, startWrangler } from "../../e2e/harness/wrangler";
import { type McpTaskServer, mcpTaskServer } from "../../fakes/mcp-task-server";
import { serveFetch } from "../../fakes/serve-fetch";

const TOKEN = "mcp-tasks-token";
const cleanups: (() => unknown)[] = [];
const rows: string[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
  console.log(
    [
      "MCP task crash table (kills → tools/call seen, tasks created, tasks/get asked, the call's response)",
      "| kills | tools/call | tasks | tasks/get | response |",
      "| --- | --- | --- | --- | --- |",
      ...rows,
    ].join("\n"),
  );
});

/** The task server behind a Node HTTP server; `jobs` with the default deadline, `slow` with `timeoutMs` 5 s. */
async function setup(failpoint: string) {
  const server = mcpTaskServer();
  const served = await serveFetch({ "/mcp": server.fetch });
  cleanups.push(() => served.close());
  const sink = await startFailpointSink();
  cleanups.push(() => sink.close());
  const persistTo = makePersistDir("hw-mcp-tasks-");
  cleanups.push(() => rmSync(persistTo, { recursive: true, force: true }));
  const vars = {
    API_TOKENS: TOKEN,
    HTTP_TOOL_ALLOWED_HOSTS: "127.0.0.1:*",
    MCP_SERVERS: JSON.stringify([
      { name: "jobs", url: `${served.url}/mcp` },
      { name: "slow", url: `${served.url}/mcp`, timeoutMs: 5_000 },
    ]),
  };
  const worker = await startWrangler({
    persistTo,
    vars: { ...vars, HW_FAILPOINT: failpoint, HW_FAILPOINT_URL: sink.url },
  });
  const handle = { worker, api: createApi(worker.url, TOKEN) };
  cleanups.push(() => handle.worker.stop());
  /** SIGKILL, then the same persist dir again without a failpoint, with no request in between. */
  const restart = async () => {
    await handle.worker.kill9();
    handle.worker = await startWrangler({ ...handle.worker.options, vars, port: undefined, inspectorPort: undefined });
    handle.api = createApi(handle.worker.url, TOKEN);
  };
  return { server, sink, handle, restart };
}

/** Each case starts wrangler two or three times: generous on a loaded machine. */
const CASE_MS = 300_000;
const count = (server: McpTaskServer, method: string) => server.requests.filter((m) => m === method).length;
const responses = (events: Event[]) =>
  events.flatMap((e) => (e.content?.type === "functionResponse" ? [e.content] : []));

/** Every dispatch has exactly one outcome; returns the responses. */
function pairedOutcomes(events: Event[]) {
  const dispatched = events.flatMap((e) => {
    const d = e.actions?.toolDispatch as { callId?: string } | undefined;
    return d?.callId ? [d.callId] : [];
  });
  const answered = responses(events).map((r) => r.callId);
  expect(dispatched.length).toBeGreaterThan(0);
  expect([...answered].sort()).toEqual([...dispatched].sort());
  return responses(events);
}

async function waitUntil(what: string, ok: () => boolean, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.concurrent("MCP tasks under wrangler, killed with SIGKILL", () => {
  it(
    "a task survives two kills (F16, then mid-wait after a poll); the tool is called once",
    async () => {
      const { server, sink, handle, restart } = await setup("F16");
      const session = await handle.api.createSession({ title: "task crash" });
      await handle.api.sendMessage(session.id, "use jobs__report");
      await sink.waitFor("F16", 90_000);
      expect(server.calls).toHaveLength(1);
      expect(server.tasks.size).toBe(1);

      await restart();
      // The restarted object polls the recorded task on its own (its alarm): no request wakes it.
      const polls = count(server, "tasks/get");
      await waitUntil("a poll after the first restart", () => count(server, "tasks/get") > polls, 90_000);
      const mid = await handle.api.getSession(session.id);
      expect(mid.openTurn).toBe(true);

      await restart();
      server.complete("task-1", "the quarterly report");
      const done = await handle.api.waitForIdle(session.id, { timeoutMs: 120_000 });
      expect((await handle.api.verify(session.id)).ok).toBe(true);
      const [response, ...more] = pairedOutcomes(done.events);
      expect(more).toEqual([]);
      expect(response).toMatchObject({ name: "jobs__report", status: "ok", response: "the quarterly report" });
      expect(server.calls).toEqual([{ tool: "report", key: expect.stringMatching(/^hw_/), task: true }]);
      expect(server.tasks.size).toBe(1);
      const recorded = done.events.filter((e) => e.actions?.stateDelta?.remoteTask);
      expect(recorded).toHaveLength(1);
      expect(recorded[0]!.actions!.stateDelta!.remoteTask).toMatchObject({ server: "jobs", taskId: "task-1" });
      rows.push(
        `| F16, mid-wait | ${server.calls.length} | ${server.tasks.size} | ${count(server, "tasks/get")} | ${response!.status}: ${JSON.stringify(response!.response)} |`,
      );
    },
    CASE_MS,
  );

  it(
    "F17: a task done whose outcome was not committed is recorded once, not called again; a task that never ends is remote_timeout and cancelled",
    async () => {
      const { server, sink, handle, restart } = await setup("F17");
      const session = await handle.api.createSession({ title: "task F17" });
      await handle.api.sendMessage(session.id, "use jobs__report");
      await waitUntil("the task", () => server.tasks.size === 1, 90_000);
      server.complete("task-1", "done before the crash");
      await sink.waitFor("F17", 90_000);
      const results = count(server, "tasks/result");
      expect(results).toBeGreaterThanOrEqual(1);

      await restart();
      const done = await handle.api.waitForIdle(session.id, { timeoutMs: 120_000 });
      expect((await handle.api.verify(session.id)).ok).toBe(true);
      const [response, ...more] = pairedOutcomes(done.events);
      expect(more).toEqual([]);
      expect(response).toMatchObject({ name: "jobs__report", status: "ok", response: "done before the crash" });
      expect(server.calls).toHaveLength(1);
      expect(server.tasks.size).toBe(1);
      // The result was asked again after the restart; the call was not made again.
      expect(count(server, "tasks/result")).toBeGreaterThan(results);
      rows.push(
        `| F17 | ${server.calls.length} | ${server.tasks.size} | ${count(server, "tasks/get")} | ${response!.status}: ${JSON.stringify(response!.response)} |`,
      );

      // A task that never ends, on the server with `timeoutMs` 5 s: the call is remote_timeout, the task cancelled.
      const slow = await handle.api.createSession({ title: "task timeout" });
      await handle.api.sendMessage(slow.id, "use slow__report");
      const timedOut = await handle.api.waitForIdle(slow.id, { timeoutMs: 120_000 });
      expect((await handle.api.verify(slow.id)).ok).toBe(true);
      const [late, ...others] = pairedOutcomes(timedOut.events);
      expect(others).toEqual([]);
      expect(late).toMatchObject({
        name: "slow__report",
        status: "error",
        response: { code: "remote_timeout", taskId: "task-2" },
      });
      expect(server.requests).toContain("tasks/cancel");
      expect(server.tasks.get("task-2")?.status).toBe("cancelled");
      expect(server.calls).toHaveLength(2);
      rows.push(
        `| none (timeoutMs 5 s) | 1 | 1 | — | ${late!.status}: ${(late!.response as { code: string }).code}, tasks/cancel sent |`,
      );
    },
    CASE_MS,
  );

  it(
    "a task's own question survives kill -9: answered after the restart, the task gets the answer once",
    async () => {
      const { server, handle, restart } = await setup("none");
      const session = await handle.api.createSession({ title: "task question" });
      await handle.api.sendMessage(session.id, "use jobs__approve");
      const waiting = await handle.api.waitFor(session.id, (s) => (s.status as string) === "waiting_input", {
        timeoutMs: 90_000,
      });
      const [pending] = (waiting.session as unknown as { pendingInputs: { requestId: string; message: string }[] })
        .pendingInputs;
      expect(pending).toMatchObject({ message: "Approve task-1?" });

      await restart();
      const after = (await handle.api.getSession(session.id)) as unknown as {
        status: string;
        pendingInputs: { requestId: string }[];
      };
      expect(after.status).toBe("waiting_input");
      expect(after.pendingInputs.map((p) => p.requestId)).toEqual([pending!.requestId]);
      expect(server.answers).toEqual([]);
      const path = `/v1/sessions/${session.id}/inputs/${pending!.requestId}`;
      expect((await handle.api.raw("POST", path, { action: "accept", content: { approve: true } })).status).toBe(200);
      expect((await handle.api.raw("POST", path, { action: "decline" })).status).toBe(409);
      const done = await handle.api.waitForIdle(session.id, { timeoutMs: 120_000 });
      expect((await handle.api.verify(session.id)).ok).toBe(true);
      const [response, ...more] = pairedOutcomes(done.events);
      expect(more).toEqual([]);
      expect(response).toMatchObject({ name: "jobs__approve", status: "ok", response: 'accept: {"approve":true}' });
      expect(server.answers).toEqual([{ taskId: "task-1", action: "accept", content: { approve: true } }]);
      expect(server.calls).toHaveLength(1);
      expect(done.events.filter((e) => e.actions?.stateDelta?.inputRequested)).toHaveLength(1);
      rows.push(
        `| mid-question (input_required), answered after | ${server.calls.length} | ${server.tasks.size} | ${count(server, "tasks/get")} | ${response!.status}: ${JSON.stringify(response!.response)}, answer received once |`,
      );
    },
    CASE_MS,
  );
});
