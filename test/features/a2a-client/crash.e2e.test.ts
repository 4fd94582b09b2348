/**
 * The A2A client's crash table (docs/API.md#a2a-agents, docs/design.md#remote-calls): a real
 * `wrangler dev` killed with SIGKILL at each boundary of a remote call and restarted on the same
 * persist dir with no request, against a fake agent (`@a2a-js/sdk`'s server) that counts sends,
 * messageIds and tasks. A call with no recorded task follows its effect (`write` → interrupted;
 * `idempotent` → sent again with the same messageId, the agent keeps one task); a call with a
 * recorded task goes on waiting for it and is never sent again.
 *
 *   npx vitest run --project e2e test/features/a2a-client/crash.e2e.test.ts
 *   A2A_CRASH_ONLY=F16,wait …   only these boundaries
 */
import { afterAll, describe, expect, it } from "vitest";
import { limiter } from "../../e2e/crash/run-case";
import { remoteTaskOf, type Stack, startStack, waitOf } from "./support";

type Point = "F4" | "F6" | "F16" | "wait" | "F17";
type Case = { effect: "write" | "idempotent"; point: Point };
type Row = Case & {
  sends: number;
  messageIds: number;
  tasks: number;
  status: string;
  recovery: string | null;
  responses: number;
};

const WHERE: Record<Point, string> = {
  F4: "T1 committed, nothing sent",
  F6: "sent, task id not recorded",
  F16: "task id recorded",
  wait: "mid-wait (polled while working)",
  F17: "task done, outcome not committed",
};

const rows: Row[] = [];
const run = limiter(2);

async function crashCase({ effect, point }: Case): Promise<Row> {
  const stack: Stack = await startStack({ effect, ...(point === "wait" ? {} : { failpoint: point }) });
  try {
    let { api } = stack;
    const { agent } = stack;
    const session = await api.createSession({ title: `a2a crash ${effect} ${point}` });
    await api.sendMessage(session.id, "do the thing");
    if (point === "wait" || point === "F17") {
      const send = await agent.waitForSend();
      await api.waitFor(session.id, (s) => waitOf(s)?.kind === "remote" && (agent.polls.get(send.taskId!) ?? 0) >= 1);
      if (point === "F17") agent.complete(send.taskId!, "finished");
    }
    if (point !== "wait") await stack.sink!.waitFor(point, 60_000);
    const sentBefore = agent.sends.length;
    if (point === "F4") expect(sentBefore).toBe(0);
    else expect(sentBefore).toBe(1);
    await stack.restart();
    api = stack.api;
    if (point === "F16" || point === "wait") {
      // The recorded task is waited for again, never sent again.
      const again = await api.waitFor(session.id, (s) => waitOf(s)?.kind === "remote");
      expect(again.session.status).toBe("waiting");
      expect(again.session.recoveryNotice).toBeNull();
      agent.complete(agent.tasks()[0]!, "finished");
    }
    if (effect === "idempotent" && (point === "F4" || point === "F6")) {
      const send = await agent.waitForSend(point === "F4" ? 1 : 2);
      if (point === "F6") await api.waitFor(session.id, (s) => waitOf(s)?.kind === "remote");
      agent.complete(send.taskId!, "finished");
    }
    const done = await api.waitForIdle(session.id, { timeoutMs: 120_000 });
    expect((await api.verify(session.id)).ok).toBe(true);
    const responses = done.events.filter((e) => e.content?.type === "functionResponse");
    const response = responses[0];
    const dispatch = done.events.find((e) => e.actions?.toolDispatch)?.actions?.toolDispatch as {
      idempotencyKey: string;
    };
    for (const s of agent.sends) expect(s.messageId).toBe(dispatch.idempotencyKey);
    if (point === "F16" || point === "wait" || point === "F17")
      expect(remoteTaskOf(done.events)?.taskId).toBe(agent.tasks()[0]);
    return {
      effect,
      point,
      sends: agent.sends.length,
      messageIds: new Set(agent.sends.map((s) => s.messageId)).size,
      tasks: agent.tasks().length,
      status: (response?.content as { status: string } | undefined)?.status ?? "none",
      recovery: (response?.actions?.toolRecovery as { strategy: string } | undefined)?.strategy ?? null,
      responses: responses.length,
    };
  } finally {
    await stack.close();
  }
}

const only = process.env.A2A_CRASH_ONLY?.split(",");
const ALL: Case[] = [
  { effect: "write", point: "F4" },
  { effect: "idempotent", point: "F4" },
  { effect: "write", point: "F6" },
  { effect: "idempotent", point: "F6" },
  { effect: "write", point: "F16" },
  { effect: "idempotent", point: "F16" },
  { effect: "write", point: "wait" },
  { effect: "write", point: "F17" },
];
const CASES = ALL.filter((c) => !only || only.includes(c.point));

describe.concurrent("A2A calls killed at each boundary recover by what the log recorded", () => {
  it.each(CASES)(
    "$effect killed at $point",
    async (c) => {
      const row = await run(() => crashCase(c));
      rows.push(row);
      expect(row.responses).toBe(1);
      expect(row.messageIds).toBeLessThanOrEqual(1);
      if (c.point === "F4" || c.point === "F6") {
        if (c.effect === "write") {
          expect(row).toMatchObject({
            status: "interrupted",
            recovery: "interrupted",
            sends: c.point === "F4" ? 0 : 1,
          });
        } else {
          // Sent again with the same messageId: the agent keeps one task.
          expect(row).toMatchObject({ status: "ok", recovery: "rerun", tasks: 1, sends: c.point === "F4" ? 1 : 2 });
        }
      } else {
        // A recorded task: waited for, never sent again.
        expect(row).toMatchObject({ status: "ok", recovery: null, sends: 1, tasks: 1 });
      }
    },
    900_000,
  );
});

afterAll(() => {
  const lines = rows.map(
    (r) =>
      `| ${r.effect} | ${r.point} (${WHERE[r.point]}) | ${r.sends} | ${r.messageIds} | ${r.tasks} | ${r.status} | ${r.recovery ?? "—"} |`,
  );
  console.log(
    [
      "A2A crash table (effect × kill point → sends the agent saw, distinct messageIds, tasks, the call's response)",
      "| effect | kill | sends | messageIds | tasks | status | toolRecovery |",
      "| --- | --- | --- | --- | --- | --- | --- |",
      ...lines,
    ].join("\n"),
  );
});
