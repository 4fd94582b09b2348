import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  allEvents,
  api,
  createSession,
  expectError,
  highWaterOf,
  OTHER_TOKEN,
  openSocket,
  type SocketProbe,
  sleep,
  waitForSession,
} from "./helpers";

/** docs/API.md §4: the session's WebSocket. */

const ALLOWED_ORIGIN = "https://console.example";

async function connect(id: string, opts: Parameters<typeof openSocket>[1] = {}): Promise<SocketProbe> {
  const { res, probe } = await openSocket(id, opts);
  if (!probe) throw new Error(`upgrade refused: ${res.status} ${await res.text()}`);
  expect(res.status).toBe(101);
  return probe;
}

async function refused(id: string, opts: Parameters<typeof openSocket>[1], status: number, code: string) {
  const { res, probe } = await openSocket(id, opts);
  expect(probe).toBeNull();
  expectError({ status: res.status, body: await res.json() }, status, code);
}

const eventSeqs = (frames: any[]) => frames.filter((f) => f.type === "event").map((f) => f.event.seq as number);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const isClose = (f: any) => f.type === "event" && f.event.actions?.turnClose;

describe("catch-up and live frames", () => {
  it("sends ready first, then every event after `after` exactly once in order, then live ones", async () => {
    const s = await createSession();
    expect((await api(`/v1/sessions/${s.id}/messages`, { method: "POST", json: { text: "first task" } })).status).toBe(
      202,
    );
    const first = await waitForSession(s.id, (x) => x.openTurn === false);

    const ws = await connect(s.id);
    await ws.waitFor((f) => f.type === "event" && f.event.seq === first.highWater);
    expect(ws.frames[0]).toEqual({ type: "ready", session: first });
    expect(eventSeqs(ws.frames)).toEqual(range(1, first.highWater));
    // Each event frame carries the event exactly as the HTTP API serves it.
    const stored = await allEvents(s.id);
    expect(ws.frames.filter((f) => f.type === "event").map((f) => f.event)).toEqual(stored);

    // Live: a second turn, started over HTTP, arrives on the open socket.
    const mark = ws.frames.length;
    const sent = await api(`/v1/sessions/${s.id}/messages`, { method: "POST", json: { text: "second task" } });
    expect(sent.body.seq).toBe(first.highWater + 1);
    await ws.waitFor(isClose, { from: mark });
    const done = await waitForSession(s.id, (x) => x.openTurn === false);
    await sleep(100);
    expect(eventSeqs(ws.frames)).toEqual(range(1, done.highWater));
    expect(ws.frames.filter((f) => f.type === "ready")).toHaveLength(1);
    ws.close();
  });

  it("streams delta frames that add up to the committed model text, before it is committed", async () => {
    const s = await createSession();
    const ws = await connect(s.id);
    await ws.waitFor((f) => f.type === "event" && f.event.seq === 1);
    await api(`/v1/sessions/${s.id}/messages`, { method: "POST", json: { text: "stream please" } });
    await ws.waitFor(isClose);
    const texts = ws.frames.filter(
      (f) => f.type === "event" && f.event.author === "model" && f.event.content?.type === "text",
    );
    expect(texts.length).toBeGreaterThan(1);
    for (const t of texts) {
      const at = ws.frames.indexOf(t);
      const deltas = ws.frames.filter((f) => f.type === "delta" && f.invocationId === t.event.invocationId);
      expect(deltas.length).toBeGreaterThan(0);
      for (const d of deltas) {
        expect(d.kind).toBe("text");
        expect(ws.frames.indexOf(d)).toBeLessThan(at);
      }
      expect(deltas.map((d) => d.text).join("")).toBe(t.event.content.text);
    }
    ws.close();
  });

  it("sends a session frame whenever status or openTurn changes, and only then", async () => {
    const s = await createSession();
    const ws = await connect(s.id);
    await ws.waitFor((f) => f.type === "event" && f.event.seq === 1);
    await api(`/v1/sessions/${s.id}/messages`, { method: "POST", json: { text: "track my status" } });
    await ws.waitFor(isClose);
    await ws.waitFor((f) => f.type === "session" && f.session.openTurn === false);
    const sessions = ws.frames.filter((f) => f.type === "session").map((f) => f.session);
    expect(sessions[0]).toMatchObject({ status: "running", openTurn: true });
    expect(sessions.at(-1)).toMatchObject({ status: "idle", openTurn: false });
    for (let i = 1; i < sessions.length; i++) {
      const [a, b] = [sessions[i - 1], sessions[i]];
      const same =
        a.status === b.status &&
        a.openTurn === b.openTurn &&
        JSON.stringify(a.pendingApprovals) === JSON.stringify(b.pendingApprovals) &&
        JSON.stringify(a.recoveryNotice) === JSON.stringify(b.recoveryNotice);
      expect(same).toBe(false);
    }
    // The session frame that closes the turn follows the turnClose event and reports its highWater.
    const closeAt = ws.frames.findIndex(isClose);
    const idleAt = ws.frames.findIndex((f) => f.type === "session" && f.session.openTurn === false);
    expect(idleAt).toBeGreaterThan(closeAt);
    expect(ws.frames[idleAt].session.highWater).toBe(ws.frames[closeAt].event.seq);
    ws.close();
  });

  it("reconnecting with after=N gets exactly the events after N, no duplicates", async () => {
    const s = await createSession();
    const ws1 = await connect(s.id);
    await api(`/v1/sessions/${s.id}/messages`, { method: "POST", json: { text: "reconnect test" } });
    await ws1.waitFor(isClose);
    const done = await waitForSession(s.id, (x) => x.openTurn === false);
    const all1 = eventSeqs(ws1.frames);
    expect(all1).toEqual(range(1, done.highWater));
    ws1.close();

    const cut = Math.floor(done.highWater / 2);
    const ws2 = await connect(s.id, { query: `?after=${cut}` });
    await ws2.waitFor((f) => f.type === "event" && f.event.seq === done.highWater);
    await sleep(100);
    expect(ws2.frames[0].type).toBe("ready");
    expect(eventSeqs(ws2.frames)).toEqual(all1.filter((n) => n > cut));

    // after = highWater: nothing to catch up, but live events still come.
    const ws3 = await connect(s.id, { query: `?after=${done.highWater}` });
    await ws3.waitFor((f) => f.type === "ready");
    await sleep(100);
    expect(eventSeqs(ws3.frames)).toEqual([]);
    await api(`/v1/sessions/${s.id}`, { method: "PATCH", json: { title: "renamed" } });
    await ws3.waitFor((f) => f.type === "event");
    expect(eventSeqs(ws3.frames)).toEqual([done.highWater + 1]);
    ws2.close();
    ws3.close();
  });
});

describe("client frames", () => {
  it("a message frame is acked with {turnId, seq} and recorded with source ws", async () => {
    const s = await createSession();
    const ws = await connect(s.id);
    ws.send({ type: "message", id: "m1", text: "hello over the socket" });
    const ack = await ws.waitFor((f) => f.type === "ack");
    expect(ack).toEqual({ type: "ack", id: "m1", result: { turnId: expect.any(String), seq: 2 } });
    const ev = await ws.waitFor((f) => f.type === "event" && f.event.seq === 2);
    expect(ev.event).toMatchObject({
      author: "user",
      source: "ws",
      turnId: ack.result.turnId,
      content: { type: "text", text: "hello over the socket" },
    });
    await ws.waitFor(isClose);
    ws.close();
  });

  it("an idempotencyKey is shared between the socket and HTTP", async () => {
    const s = await createSession();
    const ws = await connect(s.id);
    ws.send({ type: "message", id: "m1", text: "only once", idempotencyKey: "shared-1" });
    const ack = await ws.waitFor((f) => f.type === "ack" && f.id === "m1");
    await ws.waitFor(isClose);
    const hw = await highWaterOf(s.id);
    const again = await api(`/v1/sessions/${s.id}/messages`, {
      method: "POST",
      json: { text: "only once", idempotencyKey: "shared-1" },
    });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(ack.result);
    ws.send({ type: "message", id: "m2", text: "only once", idempotencyKey: "shared-1" });
    const ack2 = await ws.waitFor((f) => f.type === "ack" && f.id === "m2");
    expect(ack2.result).toEqual(ack.result);
    expect(await highWaterOf(s.id)).toBe(hw);
    ws.close();
  });

  it("each malformed frame gets an error frame (echoing its id) and changes nothing", async () => {
    const s = await createSession();
    const ws = await connect(s.id);
    await ws.waitFor((f) => f.type === "event" && f.event.seq === 1);
    const before = await api(`/v1/sessions/${s.id}`);
    const cases: [string, string | undefined, string][] = [
      ["not json", undefined, "bad_request"],
      ["{", undefined, "bad_request"],
      ["null", undefined, "bad_request"],
      ["[]", undefined, "bad_request"],
      [JSON.stringify({ type: "nope", id: "u1" }), "u1", "bad_request"],
      [JSON.stringify({ id: "u2", text: "no type" }), "u2", "bad_request"],
      [JSON.stringify({ type: "message", id: "u3" }), "u3", "bad_request"],
      [JSON.stringify({ type: "message", id: "u4", text: "" }), "u4", "bad_request"],
      [JSON.stringify({ type: "message", id: "u5", text: 42 }), "u5", "bad_request"],
      [JSON.stringify({ type: "message", id: "u6", text: "x".repeat(262_145) }), "u6", "payload_too_large"],
      [JSON.stringify({ type: "message", id: "u7", text: "é".repeat(131_073) }), "u7", "payload_too_large"],
      ['{"type":"message","id":"u8","text":"\\ud800"}', "u8", "bad_request"],
      [JSON.stringify({ type: "message", id: "u9", text: "hi", extra: true }), "u9", "bad_request"],
      [
        JSON.stringify({ type: "approval", id: "u10", requestId: `apr_${"0".repeat(24)}`, decision: "maybe" }),
        "u10",
        "bad_request",
      ],
      [JSON.stringify({ type: "approval", id: "u11", decision: "approve" }), "u11", "bad_request"],
      [JSON.stringify({ type: "stop", id: "u12", now: true }), "u12", "bad_request"],
      [JSON.stringify({ type: "message", id: 7, text: "id must be a string" }), undefined, "bad_request"],
      [
        JSON.stringify({ type: "approval", id: "u13", requestId: `apr_${"0".repeat(24)}`, decision: "approve" }),
        "u13",
        "not_found",
      ],
    ];
    for (const [frame, id, code] of cases) {
      const from = ws.frames.length;
      ws.send(frame);
      const err = await ws.waitFor((f) => f.type === "error" || f.type === "ack", { from });
      expect(err.type, frame.slice(0, 80)).toBe("error");
      expect(err.error.code, frame.slice(0, 80)).toBe(code);
      expect(typeof err.error.message).toBe("string");
      if (id === undefined) expect("id" in err, frame.slice(0, 80)).toBe(false);
      else expect(err.id).toBe(id);
    }
    await sleep(100);
    expect(ws.frames.filter((f) => f.type === "event" || f.type === "session" || f.type === "ack")).toHaveLength(1);
    expect(await api(`/v1/sessions/${s.id}`)).toMatchObject({ status: 200, body: before.body });
    ws.close();
  });

  it("an approval frame whose requestId holds LIKE wildcards is 404, not a conflict", async () => {
    const s = await createSession({ approvals: [{ tool: "write_file" }] });
    const ws = await connect(s.id);
    await api(`/v1/sessions/${s.id}/messages`, { method: "POST", json: { text: "needs approval" } });
    const waiting = await waitForSession(s.id, (x) => x.status === "waiting_approval");
    try {
      for (const requestId of ["%", "apr_%", `apr_${"_".repeat(24)}`]) {
        const from = ws.frames.length;
        ws.send({ type: "approval", id: "w", requestId, decision: "approve" });
        const err = await ws.waitFor((f) => f.type === "error" || f.type === "ack", { from });
        expect(err.error?.code, requestId).toBe("not_found");
      }
      expect((await api(`/v1/sessions/${s.id}`)).body.pendingApprovals).toEqual(waiting.pendingApprovals);
    } finally {
      await api(`/v1/sessions/${s.id}/stop`, { method: "POST" });
      ws.close();
    }
  });

  it("approval and stop frames are acked with the Session", async () => {
    const s = await createSession({ approvals: [{ tool: "write_file" }] });
    const ws = await connect(s.id);
    ws.send({ type: "message", id: "m", text: "approve me" });
    const pending = await ws.waitFor((f) => f.type === "session" && f.session.status === "waiting_approval");
    const [req] = pending.session.pendingApprovals;
    expect(req).toMatchObject({ tool: "write_file", requestId: expect.stringMatching(/^apr_/) });
    ws.send({ type: "approval", id: "a", requestId: req.requestId, decision: "approve" });
    const ack = await ws.waitFor((f) => f.type === "ack" && f.id === "a");
    expect(ack.result.pendingApprovals).toEqual([]);
    await ws.waitFor(isClose);
    // Deciding again over the socket is a conflict, as over HTTP.
    ws.send({ type: "approval", id: "a2", requestId: req.requestId, decision: "reject" });
    const err = await ws.waitFor((f) => f.type === "error" && f.id === "a2");
    expect(err.error.code).toBe("conflict");
    ws.send({ type: "stop", id: "st" });
    const stopAck = await ws.waitFor((f) => f.type === "ack" && f.id === "st");
    expect(stopAck.result).toMatchObject({ openTurn: false, status: "idle" });
    ws.close();
  });
});

describe("upgrade errors are answered before the upgrade", () => {
  it("no Upgrade header is 400", async () => {
    const s = await createSession();
    expectError(await api(`/v1/sessions/${s.id}/ws`), 400, "bad_request");
    expect(await highWaterOf(s.id)).toBe(1);
  });

  it("after beyond highWater, negative or not an integer is 400", async () => {
    const s = await createSession();
    for (const q of ["?after=2", "?after=-1", "?after=abc", "?after=1.0", "?after="])
      await refused(s.id, { query: q }, 400, "bad_request");
    expect(await highWaterOf(s.id)).toBe(1);
    expect((await openSocket(s.id, { query: "?after=1" })).res.status).toBe(101);
  });

  it("no auth is 401, a bad Origin is 403, another principal's session is 404", async () => {
    const s = await createSession();
    await refused(s.id, { token: null }, 401, "unauthorized");
    await refused(s.id, { token: "test-token-zzz" }, 401, "unauthorized");
    await refused(s.id, { headers: { origin: "https://evil.example" } }, 403, "forbidden");
    await refused(s.id, { token: OTHER_TOKEN }, 404, "not_found");
    expect(await highWaterOf(s.id)).toBe(1);
  });

  it("an allowed Origin upgrades", async () => {
    const s = await createSession();
    const ok = await connect(s.id, { headers: { origin: ALLOWED_ORIGIN } });
    await ok.waitFor((f) => f.type === "ready");
    ok.close();
  });
});

describe("tickets", () => {
  const ticketFor = async (id: string) => {
    const r = await api(`/v1/sessions/${id}/tickets`, { method: "POST" });
    expect(r.status).toBe(201);
    return r.body as { ticket: string; expiresAt: string };
  };
  const withTicket = (ticket: string, origin: string | null = ALLOWED_ORIGIN) => ({
    token: null,
    query: `?ticket=${encodeURIComponent(ticket)}`,
    headers: (origin ? { origin } : {}) as Record<string, string>,
  });

  it("POST /tickets is 201 {ticket, expiresAt} about 60 s ahead and appends nothing", async () => {
    const s = await createSession();
    const t = await ticketFor(s.id);
    expect(typeof t.ticket).toBe("string");
    const ttl = Date.parse(t.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(61_000);
    expect(await highWaterOf(s.id)).toBe(1);
    expectError(await api(`/v1/sessions/${s.id}/tickets`, { method: "POST", token: null }), 401, "unauthorized");
  });

  it("a ticket opens the socket once (allowed Origin, no Authorization); a second use is 401", async () => {
    const s = await createSession();
    const { ticket } = await ticketFor(s.id);
    const ws = await connect(s.id, withTicket(ticket));
    const ready = await ws.waitFor((f) => f.type === "ready");
    expect(ready.session.id).toBe(s.id);
    ws.close();
    await refused(s.id, withTicket(ticket), 401, "unauthorized");
  });

  it("a ticket for another session is 401", async () => {
    const a = await createSession();
    const b = await createSession();
    const { ticket } = await ticketFor(a.id);
    await refused(b.id, withTicket(ticket), 401, "unauthorized");
  });

  it("a ticket without an Origin, or with a foreign one, is 403", async () => {
    const s = await createSession();
    const { ticket } = await ticketFor(s.id);
    await refused(s.id, withTicket(ticket, null), 403, "forbidden");
    await refused(s.id, withTicket(ticket, "https://evil.example"), 403, "forbidden");
  });

  it("an unknown ticket is 401", async () => {
    const s = await createSession();
    for (const t of ["garbage", "a.b", `${"ab".repeat(31)}.x`]) await refused(s.id, withTicket(t), 401, "unauthorized");
    expect(await highWaterOf(s.id)).toBe(1);
  });

  it("an expired ticket is 401", async () => {
    const s = await createSession();
    const { ticket } = await ticketFor(s.id);
    // Age the stored ticket past its 60 s instead of waiting.
    await runInDurableObject(env.SESSIONS.get(env.SESSIONS.idFromString(s.id)), (_obj, state) => {
      state.storage.sql.exec("UPDATE tickets SET expires_at = ?", Date.now() - 1);
    });
    await refused(s.id, withTicket(ticket), 401, "unauthorized");
  });

  it("a forged ticket, or a ticket used on a session its principal does not own, is 401", async () => {
    const s = await createSession();
    await refused(s.id, withTicket(`${"ab".repeat(32)}.forged`), 401, "unauthorized");
    const { ticket } = await ticketFor(s.id);
    await refused("cd".repeat(32), withTicket(ticket), 401, "unauthorized");
  });
});
