/**
 * Two highwater deployments meeting over A2A (docs/API.md#a2a-agents): deployment A's agents `b`
 * (effect `write`) and `bi` (`idempotent`) are deployment B (`A2A_AGENTS` → B's card, B's token
 * by `{{secret:B_TOKEN}}`), and B pushes its task's updates to A (`PUBLIC_URL`, B's
 * `A2A_PUSH_ALLOWED_HOSTS`). Both are real `wrangler dev` processes on pinned ports (a restart
 * keeps B's card URL and A's notification URL), killed with SIGKILL at every boundary of a call:
 * A before send (F4), after send (F6), mid-wait, at the callback (B's push arrives while A is
 * down; A killed as it records the outcome, F17), B mid-task, B at completion (F11). Each is
 * restarted on the same persist dir and left alone until the call settles. Then on B the call's
 * `messageId` (A's idempotency key) ran exactly one task in one context (none where a `write`
 * call was cut before its send), and on A every dispatch has one outcome, B's answer or the
 * documented `interrupted`, and `/verify` holds on both sides.
 *
 * One model server plays both sides: A's turn calls the agent its message names and then answers;
 * B's turn answers when the test opens that task's gate, so a task takes as long as a case needs.
 * Processes are reused: a restart after a kill is armed with the next case's failpoint, and the
 * cases run as two chains side by side, each on its own pair of deployments.
 *
 *   npx vitest run --project e2e test/features/a2a-client/two-deployments.e2e.test.ts
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, createApi, type Event } from "../../e2e/harness/api";
import {
  DEFAULT_SUMMARY,
  type FakeOpenAI,
  isCompactionRequest,
  messageText,
  startFakeOpenAI,
} from "../../e2e/harness/fake-openai";
import {
  type FailpointSink,
  freePort,
  makePersistDir,
  startFailpointSink,
  startWrangler,
  type Wrangler,
} from "../../e2e/harness/wrangler";
import { waitOf } from "./support";

const A_TOKEN = "two-deployments-a-token";
const B_TOKEN = "two-deployments-b-token";
const SETTLE_MS = 150_000;

// --- B's model: a task answers when its gate opens -------------------------------------------

type Gate = { promise: Promise<void>; open: () => void; arrivals: number };
const gates = new Map<string, Gate>();

function gate(id: string): Gate {
  let g = gates.get(id);
  if (!g) {
    let open!: () => void;
    const promise = new Promise<void>((r) => {
      open = r;
    });
    g = { promise, open, arrivals: 0 };
    gates.set(id, g);
  }
  return g;
}

let model: FakeOpenAI;
async function startModel(): Promise<FakeOpenAI> {
  return startFakeOpenAI(async (body) => {
    if (isCompactionRequest(body)) return { text: DEFAULT_SUMMARY };
    const messages = body.messages;
    const lastUser = messages.findLastIndex((m) => m.role === "user");
    const text = messageText(messages[lastUser]);
    const results = messages.slice(lastUser + 1).filter((m) => m.role === "tool");
    if (body.tools?.some((t) => t.function.name.endsWith("__send"))) {
      // Deployment A: "<agent> asks <case>" calls that agent once, then says what came back.
      if (results.length > 0) return { text: `A heard: ${messageText(results.at(-1))}` };
      const [, agent, id] = /^(\w+) asks (\S+)$/.exec(text) ?? [];
      return { toolCalls: [{ name: `${agent}__send`, args: { text: `task ${id}` } }] };
    }
    // Deployment B: "task <case>" answers once the test opens the case's gate.
    const id = /^task (\S+)$/.exec(text)?.[1] ?? "unknown";
    const g = gate(id);
    g.arrivals++;
    await g.promise;
    return { text: `B finished ${id}` };
  });
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// --- A deployment on a pinned port, restarted on the same state ------------------------------

type Deployment = {
  port: number;
  url: string;
  api: Api;
  sink: FailpointSink;
  worker: Wrangler;
  /** How often the failpoint `id` was reached so far. */
  reached(id: string): number;
  /** SIGKILL, then start again on the same persist dir and port, armed at `failpoint` if given. */
  restart(failpoint?: string): Promise<void>;
  close(): Promise<void>;
};

async function deploy(
  port: number,
  vars: Record<string, string>,
  token: string,
  failpoint?: string,
): Promise<Deployment> {
  const sink = await startFailpointSink();
  const persistTo = makePersistDir("hw-a2a-two-");
  const start = (fp?: string) =>
    startWrangler({
      persistTo,
      port,
      vars: { ...vars, ...(fp ? { HW_FAILPOINT: fp, HW_FAILPOINT_URL: sink.url } : {}) },
    });
  const d: Deployment = {
    port,
    url: `http://127.0.0.1:${port}`,
    api: createApi(`http://127.0.0.1:${port}`, token),
    sink,
    worker: await start(failpoint),
    reached: (id) => sink.received.filter((r) => r === id).length,
    async restart(fp) {
      await d.worker.kill9();
      d.worker = await start(fp);
    },
    async close() {
      await d.worker.stop().catch(() => undefined);
      await sink.close();
      rmSync(persistTo, { recursive: true, force: true });
    },
  };
  return d;
}

type Pair = { a: Deployment; b: Deployment };

/** B first (A's agents point at its card), then A; `failpoints` arm either at its first start. */
async function startPair(failpoints: { a?: string; b?: string } = {}): Promise<Pair> {
  const [portA, portB] = [await freePort(), await freePort()];
  const modelVars = { MODEL_PROVIDER: "openai", MODEL_BASE_URL: model.url, MODEL_API_KEY: "x", MODEL_NAME: "fake" };
  const card = `http://127.0.0.1:${portB}/.well-known/agent-card.json`;
  const headers = { authorization: "Bearer {{secret:B_TOKEN}}" };
  const [b, a] = await Promise.all([
    deploy(
      portB,
      { ...modelVars, API_TOKENS: B_TOKEN, A2A_PUSH_ALLOWED_HOSTS: "127.0.0.1:*", A2A_AGENT_NAME: "deployment B" },
      B_TOKEN,
      failpoints.b,
    ),
    deploy(
      portA,
      {
        ...modelVars,
        API_TOKENS: A_TOKEN,
        B_TOKEN,
        PUBLIC_URL: `http://127.0.0.1:${portA}`,
        A2A_AGENTS: JSON.stringify([
          { name: "b", url: card, headers, effect: "write" },
          { name: "bi", url: card, headers, effect: "idempotent" },
        ]),
      },
      A_TOKEN,
      failpoints.a,
    ),
  ]);
  return { a, b };
}

// --- One call, and what each side recorded of it ---------------------------------------------

type Killed = "A" | "B";
type Case = { id: string; agent: "b" | "bi"; killed: Killed; at: string };
type Row = Case & {
  bContexts: number;
  bTasks: number;
  bClosed: number;
  status: string;
  recovery: string | null;
  answer: string | null;
};

const rows: Row[] = [];
/** The table's order: along a call, A's boundaries, then B's. */
const ORDER = [
  "a-f4-write",
  "a-f4-idem",
  "a-f6-write",
  "a-f6-idem",
  "a-mid-wait",
  "b-mid-task",
  "b-at-completion",
  "a-down-at-push",
  "a-f17",
];

async function startCall(p: Pair, c: Case): Promise<string> {
  const session = await p.a.api.createSession({ title: `two deployments: ${c.id}` });
  await p.a.api.sendMessage(session.id, `${c.agent} asks ${c.id}`);
  return session.id;
}

/** The session on A waits for B's task, which B is running (its model call held at the gate). */
async function waitingOnB(p: Pair, sessionId: string, c: Case): Promise<void> {
  await p.a.api.waitFor(sessionId, (s) => waitOf(s)?.kind === "remote", { timeoutMs: 120_000 });
  await until(`B running ${c.id}`, () => gate(c.id).arrivals >= 1);
}

/**
 * Every session of B holding a message `sent` picks out (by A's idempotency key, the A2A
 * `messageId`), the turns (tasks) those messages are in, and how many of those turns closed.
 */
async function onB(b: Api, sent: (e: Event) => boolean) {
  const sessions = (await b.listSessions("?limit=100")).sessions;
  let contexts = 0;
  const turns = new Set<string>();
  let closed = 0;
  for (const s of sessions) {
    const events = await b.allEvents(s.id);
    const mine = events.filter((e) => e.author === "user" && e.content?.type === "text" && sent(e));
    if (mine.length === 0) continue;
    contexts++;
    for (const e of mine) turns.add(e.turnId!);
    closed += events.filter((e) => e.actions?.turnClose && turns.has(e.turnId!)).length;
    expect((await b.verify(s.id)).ok).toBe(true);
  }
  return { contexts, tasks: turns.size, closed };
}

const byKey = (messageId: string) => (e: Event) => e.actions?.stateDelta?.idempotencyKey === `a2a:${messageId}`;
const byText = (c: Case) => (e: Event) => e.content?.type === "text" && e.content.text === `task ${c.id}`;

async function settle(p: Pair, sessionId: string, c: Case): Promise<Row> {
  gate(c.id).open();
  const done = await p.a.api.waitForIdle(sessionId, { timeoutMs: SETTLE_MS });
  expect((await p.a.api.verify(sessionId)).ok).toBe(true);
  const dispatches = done.events.filter((e) => e.actions?.toolDispatch);
  const responses = done.events.filter((e) => e.content?.type === "functionResponse");
  // Every call on A is one dispatch paired with one outcome.
  expect(dispatches).toHaveLength(1);
  expect(responses).toHaveLength(1);
  const dispatch = dispatches[0]!.actions!.toolDispatch!;
  const response = responses[0]!;
  const content = response.content as { callId: string; name: string; status: string; response: unknown };
  expect(content.callId).toBe(dispatch.callId);
  expect(content.name).toBe(`${c.agent}__send`);
  expect(dispatch.effect).toBe(c.agent === "b" ? "write" : "idempotent");
  // B is done with whatever it was sent before it is counted.
  let seen = await onB(p.b.api, byKey(dispatch.idempotencyKey));
  await until(`B closing ${c.id}`, async () => {
    seen = await onB(p.b.api, byKey(dispatch.idempotencyKey));
    return seen.closed >= seen.tasks;
  });
  const answer = (content.response as { text?: string } | null)?.text ?? null;
  return {
    ...c,
    bContexts: seen.contexts,
    bTasks: seen.tasks,
    bClosed: seen.closed,
    status: content.status,
    recovery: (response.actions?.toolRecovery as { strategy: string } | undefined)?.strategy ?? null,
    answer,
  };
}

function expectAnswered(row: Row, recovery: string | null = null) {
  expect(row).toMatchObject({ bContexts: 1, bTasks: 1, bClosed: 1, status: "ok", recovery });
  expect(row.answer).toBe(`B finished ${row.id}`);
}

function expectInterrupted(row: Row, sent: boolean) {
  expect(row).toMatchObject({
    bContexts: sent ? 1 : 0,
    bTasks: sent ? 1 : 0,
    status: "interrupted",
    recovery: "interrupted",
  });
}

/** Start a call and stop at A's failpoint `fp` (A was started armed with it); restart A armed with `next`. */
async function killAAt(p: Pair, c: Case, fp: string, next?: string): Promise<string> {
  const before = p.a.reached(fp);
  gate(c.id).open();
  const sessionId = await startCall(p, c);
  await until(`A at ${fp} (${c.id})`, () => p.a.reached(fp) > before);
  await p.a.restart(next);
  return sessionId;
}

const pairs: Pair[] = [];

beforeAll(async () => {
  model = await startModel();
});

function record(row: Row): Row {
  rows.push(row);
  return row;
}

describe.concurrent("two deployments over A2A, each killed at every boundary of a call", () => {
  it("A killed before send, after send, mid-wait and as it records B's answer", async () => {
    const p = await startPair();
    pairs.push(p);
    // What A lists for a new session: each agent's tool, from B's deployment.
    const listed = (await (await p.a.api.raw("GET", "/v1/tools")).json()) as {
      tools: { name: string; source: string; effect: string }[];
    };
    expect(listed.tools.filter((t) => t.source.startsWith("a2a:"))).toEqual([
      expect.objectContaining({ name: "b__send", source: "a2a:b", effect: "write" }),
      expect.objectContaining({ name: "bi__send", source: "a2a:bi", effect: "idempotent" }),
    ]);

    // Mid-wait: A dies while B's task runs; A restarts (armed for the next case) and hears B's answer.
    const wait: Case = { id: "a-mid-wait", agent: "b", killed: "A", at: "mid-wait (B working)" };
    let sid = await startCall(p, wait);
    await waitingOnB(p, sid, wait);
    await p.a.restart("F4");
    expectAnswered(record(await settle(p, sid, wait)));

    // Before send (F4), write: never sent, answered interrupted; B ran nothing.
    const f4w: Case = { id: "a-f4-write", agent: "b", killed: "A", at: "F4 (dispatched, nothing sent)" };
    sid = await killAAt(p, f4w, "F4", "F6");
    expectInterrupted(record(await settle(p, sid, f4w)), false);

    // After send (F6), write: B has its task, A answers interrupted and never sends again.
    const f6w: Case = { id: "a-f6-write", agent: "b", killed: "A", at: "F6 (sent, task id not recorded)" };
    sid = await killAAt(p, f6w, "F6", "F17");
    expectInterrupted(record(await settle(p, sid, f6w)), true);

    // At the callback (F17): B's task is done and A knows it, not yet recorded; after the restart once.
    const f17: Case = { id: "a-f17", agent: "b", killed: "A", at: "F17 (B's answer learned, not committed)" };
    sid = await killAAt(p, f17, "F17", "F4");
    expectAnswered(record(await settle(p, sid, f17)));

    // Before send (F4), idempotent: sent after the restart under the same messageId.
    const f4i: Case = { id: "a-f4-idem", agent: "bi", killed: "A", at: "F4 (dispatched, nothing sent)" };
    sid = await killAAt(p, f4i, "F4");
    expectAnswered(record(await settle(p, sid, f4i)), "rerun");
  }, 900_000);

  it("B killed mid-task and at completion; A down when B pushes, and killed after a resend", async () => {
    const p = await startPair({ b: "F11" });
    pairs.push(p);

    // At completion (F11 on B: its turn closed, the push to A not yet sent).
    const done: Case = { id: "b-at-completion", agent: "b", killed: "B", at: "F11 (task completed, push not sent)" };
    gate(done.id).open();
    let sid = await startCall(p, done);
    await until("B at F11", () => p.b.reached("F11") > 0);
    await p.b.restart();
    expectAnswered(record(await settle(p, sid, done)));

    // Mid-task: B dies during its model call; after its restart the task goes on to its answer.
    const mid: Case = { id: "b-mid-task", agent: "b", killed: "B", at: "mid-task (its model call under way)" };
    sid = await startCall(p, mid);
    await waitingOnB(p, sid, mid);
    await p.b.restart();
    await until("B's model call issued again", () => gate(mid.id).arrivals >= 2);
    expectAnswered(record(await settle(p, sid, mid)));

    // At the callback: B finishes and pushes while A is down; A restarts and records the answer once.
    const down: Case = { id: "a-down-at-push", agent: "b", killed: "A", at: "callback (B pushes while A is down)" };
    sid = await startCall(p, down);
    await waitingOnB(p, sid, down);
    await p.a.worker.kill9();
    gate(down.id).open();
    await until("B closing its task while A is down", async () => (await onB(p.b.api, byText(down))).closed === 1);
    await p.a.restart("F6");
    expectAnswered(record(await settle(p, sid, down)));

    // After send (F6), idempotent: sent again with the same messageId; B keeps one task.
    const f6i: Case = { id: "a-f6-idem", agent: "bi", killed: "A", at: "F6 (sent, task id not recorded)" };
    sid = await killAAt(p, f6i, "F6");
    expectAnswered(record(await settle(p, sid, f6i)), "rerun");
  }, 900_000);
});

afterAll(async () => {
  for (const p of pairs) await Promise.all([p.a.close(), p.b.close()]);
  await model.close();
  rows.sort((x, y) => ORDER.indexOf(x.id) - ORDER.indexOf(y.id));
  const lines = rows.map(
    (r) =>
      `| ${r.killed} | ${r.at} | ${r.agent === "b" ? "write" : "idempotent"} | ${r.bContexts} | ${r.bTasks} | ${r.status}${r.answer ? ` (${r.answer})` : ""} | ${r.recovery ?? "—"} |`,
  );
  console.log(
    [
      "Two deployments over A2A (killed side, where → B's contexts and tasks for the call's messageId, A's one outcome)",
      "| killed | at | effect | B contexts | B tasks | A's outcome | toolRecovery |",
      "| --- | --- | --- | --- | --- | --- | --- |",
      ...lines,
    ].join("\n"),
  );
});
