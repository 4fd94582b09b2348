/**
 * docs/API.md §2 and §7.17: a human decision is bound to the exact arguments it was shown
 * (`argsDigest`), and §7.11: the recovery notice is dismissed in the log, for every client.
 */
import { describe, expect, it } from "vitest";
import { canonical, sha256Hex } from "../../src/log";
import type { ModelConfig, ModelPart, ModelProvider } from "../../src/model/types";
import { withSession } from "./context-harness";
import { settledTo } from "./drive";
import { allEvents, api, createSession, expectError, openSocket } from "./helpers";

const post = (path: string, json?: unknown) => api(path, { method: "POST", ...(json === undefined ? {} : { json }) });

async function waitingWrite(text = "remember the milk") {
  const s = await createSession({ approvals: [{ tool: "write_file" }] });
  expect((await post(`/v1/sessions/${s.id}/messages`, { text })).status).toBe(202);
  const session = await settledTo(s.id, (x) => x.status === "waiting_approval");
  return { id: s.id, pending: session.pendingApprovals[0] };
}

describe("approvals bound to their arguments", () => {
  it("a pending approval carries the digest of the functionCall's args, as recorded", async () => {
    const { id, pending } = await waitingWrite();
    const call = (await allEvents(id)).find((e) => e.content?.type === "functionCall");
    expect(pending.argsDigest).toBe(sha256Hex(canonical(call.content.args)));
    await post(`/v1/sessions/${id}/stop`);
  });

  it("a decision with another digest is 409 and appends nothing; the right one is recorded", async () => {
    const { id, pending } = await waitingWrite();
    const before = (await allEvents(id)).length;
    const wrong = await post(`/v1/sessions/${id}/approvals/${pending.requestId}`, {
      decision: "approve",
      argsDigest: "0".repeat(64),
    });
    expectError(wrong, 409, "conflict");
    expect((await allEvents(id)).length).toBe(before);
    expectError(
      await post(`/v1/sessions/${id}/approvals/${pending.requestId}`, { decision: "approve", argsDigest: "x" }),
      400,
      "bad_request",
    );

    const ok = await post(`/v1/sessions/${id}/approvals/${pending.requestId}`, {
      decision: "approve",
      argsDigest: pending.argsDigest,
    });
    expect(ok.status).toBe(200);
    const decision = (await allEvents(id)).find((e) => e.actions?.permissionDecision);
    expect(decision.actions.permissionDecision).toEqual({
      requestId: pending.requestId,
      decision: "approve",
      argsDigest: pending.argsDigest,
    });
    await settledTo(id, (x) => x.openTurn === false);
  });

  it("a decision without a digest still records the one it decided on; stop records it too", async () => {
    const a = await waitingWrite();
    await post(`/v1/sessions/${a.id}/approvals/${a.pending.requestId}`, { decision: "reject" });
    const rejected = (await allEvents(a.id)).find((e) => e.actions?.permissionDecision);
    expect(rejected.actions.permissionDecision.argsDigest).toBe(a.pending.argsDigest);

    const b = await waitingWrite();
    await post(`/v1/sessions/${b.id}/stop`);
    const stopped = (await allEvents(b.id)).find((e) => e.actions?.permissionDecision);
    expect(stopped.actions.permissionDecision).toMatchObject({ reason: "stopped", argsDigest: b.pending.argsDigest });
  });
});

const MODEL: ModelConfig = { provider: "openai", name: "fake", contextWindow: 32_000, maxOutputTokens: 4_000 };

describe("dismissing the recovery notice", () => {
  it("is 409 when there is no notice", async () => {
    const s = await createSession();
    expectError(await post(`/v1/sessions/${s.id}/recovery-notice/dismiss`, { atSeq: 1 }), 409, "conflict");
    expectError(await post(`/v1/sessions/${s.id}/recovery-notice/dismiss`, {}), 400, "bad_request");
  });

  it("appends a hidden recoveryNoticeDismissed; a stale atSeq is 409", async () => {
    let calls = 0;
    const provider: ModelProvider = {
      name: "openai",
      async *stream() {
        // The first call is lost with the object; the re-issue answers.
        if (calls++ === 0) await new Promise(() => {});
        const parts: ModelPart[] = [
          { type: "text-delta", text: "done" },
          { type: "usage", inputTokens: 10, outputTokens: 2 },
          { type: "finish", reason: "stop" },
        ];
        for (const p of parts) yield p;
      },
    };
    await withSession({ provider, model: MODEL }, async (h) => {
      await h.runtime.postMessage({ text: "task", source: "http" });
      void h.runtime.alarm();
      while (calls === 0) await new Promise((r) => setTimeout(r, 5));
      const b = h.reopen(provider);
      for (let i = 0; i < 10 && b.summary?.openTurn; i++) await b.alarm();
      const notice = b.session().recoveryNotice!;
      expect(notice).not.toBeNull();
      expect(() => b.dismissRecoveryNotice({ atSeq: notice.atSeq + 1 })).toThrow(/atSeq/);
      const after = b.dismissRecoveryNotice({ atSeq: notice.atSeq });
      expect(after.recoveryNotice).toBeNull();
      const last = h.events().at(-1)!;
      expect(last).toMatchObject({
        modelVisibility: "hidden",
        actions: { stateDelta: { recoveryNoticeDismissed: { atSeq: notice.atSeq } } },
      });
      expect(() => b.dismissRecoveryNotice({ atSeq: notice.atSeq })).toThrow(/no recovery notice/);
      // A fresh incarnation folds the same log to the same answer.
      expect(h.reopen(provider).session().recoveryNotice).toBeNull();
    });
  });
});

describe("the socket: approvals bound to their args, and pings (docs/API.md §7.17, §7.19)", () => {
  it("an approval frame with another digest gets a conflict error and decides nothing", async () => {
    const { id, pending } = await waitingWrite();
    const { probe } = await openSocket(id);
    const ws = probe!;
    await ws.waitFor((f) => f.type === "ready");
    ws.send({
      type: "approval",
      id: "a1",
      requestId: pending.requestId,
      decision: "approve",
      argsDigest: "1".repeat(64),
    });
    const err = await ws.waitFor((f) => f.type === "error" && f.id === "a1");
    expect(err.error.code).toBe("conflict");
    expect((await api(`/v1/sessions/${id}`)).body.pendingApprovals).toHaveLength(1);
    ws.send({
      type: "approval",
      id: "a2",
      requestId: pending.requestId,
      decision: "reject",
      argsDigest: pending.argsDigest,
    });
    const ack = await ws.waitFor((f) => f.type === "ack" && f.id === "a2");
    expect(ack.result.pendingApprovals).toEqual([]);
    ws.close();
  });

  it('the exact text {"type":"ping"} is answered {"type":"pong"}; any other ping is a malformed frame', async () => {
    const s = await createSession();
    const { probe } = await openSocket(s.id);
    const ws = probe!;
    await ws.waitFor((f) => f.type === "ready");
    ws.send('{"type":"ping"}');
    await ws.waitFor((f) => f.type === "pong");
    ws.send('{"type":"ping","id":"p1"}');
    const err = await ws.waitFor((f) => f.type === "error" && f.id === "p1");
    expect(err.error.code).toBe("bad_request");
    ws.close();
  });
});
