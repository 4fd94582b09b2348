/**
 * Tests of the e2e harness itself: if the fakes lie, every e2e test built on them lies too.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { verifyExportIndependently } from "./api";
import { type ChatRequest, type FakeOpenAI, isCompactionRequest, scriptedAgent, startFakeOpenAI } from "./fake-openai";
import { startFakeService } from "./fake-service";
import { startFailpointSink } from "./wrangler";

type Chunk = {
  id: string;
  object: string;
  choices: {
    index: number;
    delta: {
      role?: string;
      content?: string;
      tool_calls?: { index: number; id?: string; type?: string; function?: { name?: string; arguments?: string } }[];
    };
    finish_reason: string | null;
  }[];
  usage?: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details: { cached_tokens: number } };
};

/** Parse an SSE body the way an OpenAI client does: `data:` lines, blank-line separated, `[DONE]` last. */
function parseSse(body: string): { chunks: Chunk[]; done: boolean; afterDone: string[] } {
  const chunks: Chunk[] = [];
  let done = false;
  const afterDone: string[] = [];
  for (const block of body.split("\n\n")) {
    if (!block.trim()) continue;
    const data = block
      .split("\n")
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).trimStart())
      .join("\n");
    if (done) afterDone.push(data);
    else if (data === "[DONE]") done = true;
    else chunks.push(JSON.parse(data) as Chunk);
  }
  return { chunks, done, afterDone };
}

/** Reassemble a streamed answer like the AI SDK's openai-compatible adapter. */
function assemble(chunks: Chunk[]) {
  let text = "";
  let finish: string | null = null;
  const calls = new Map<number, { id: string; name: string; args: string }>();
  for (const c of chunks) {
    for (const ch of c.choices) {
      if (ch.delta.content) text += ch.delta.content;
      for (const tc of ch.delta.tool_calls ?? []) {
        const cur = calls.get(tc.index);
        if (!cur)
          calls.set(tc.index, { id: tc.id ?? "", name: tc.function?.name ?? "", args: tc.function?.arguments ?? "" });
        else cur.args += tc.function?.arguments ?? "";
      }
      if (ch.finish_reason) finish = ch.finish_reason;
    }
  }
  const usage = chunks.find((c) => c.usage)?.usage;
  return { text, finish, calls: [...calls.values()], usage };
}

const user = (text: string) => ({ role: "user" as const, content: text });
const request = (over: Partial<ChatRequest> = {}): ChatRequest => ({
  model: "fake-model",
  messages: [{ role: "system", content: "you are a test" }, user("hi")],
  tools: [{ type: "function", function: { name: "read_file", parameters: { type: "object" } } }],
  stream: true,
  stream_options: { include_usage: true },
  ...over,
});

async function post(fake: FakeOpenAI, body: unknown) {
  return fetch(`${fake.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer x" },
    body: JSON.stringify(body),
  });
}

describe("fake OpenAI server", () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  const start = async (...args: Parameters<typeof startFakeOpenAI>) => {
    const f = await startFakeOpenAI(...args);
    open.push(f);
    return f;
  };

  it("streams text as chat.completion.chunk frames, then usage, then [DONE]", async () => {
    const fake = await start([{ text: "Hello there, this is streamed text." }]);
    expect(fake.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const res = await post(fake, request());
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const { chunks, done, afterDone } = parseSse(await res.text());
    expect(done).toBe(true);
    expect(afterDone).toEqual([]);
    expect(chunks.every((c) => c.object === "chat.completion.chunk")).toBe(true);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    const contentChunks = chunks.filter((c) => c.choices[0]?.delta.content);
    expect(contentChunks.length).toBeGreaterThanOrEqual(2);
    expect(contentChunks.length).toBeLessThanOrEqual(10);
    const a = assemble(chunks);
    expect(a.text).toBe("Hello there, this is streamed text.");
    expect(a.finish).toBe("stop");
    expect(a.calls).toEqual([]);
    // The usage chunk is the last one, with no choices.
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(last.usage?.completion_tokens).toBeGreaterThan(0);
    expect(last.usage?.prompt_tokens_details.cached_tokens).toBe(0);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.body.messages.at(-1)).toEqual(user("hi"));
    expect(fake.requests[0]?.headers.authorization).toBe("Bearer x");
  });

  it("sends no usage chunk unless include_usage is asked for", async () => {
    const fake = await start([{ text: "x" }]);
    const { chunks } = parseSse(await (await post(fake, request({ stream_options: undefined }))).text());
    expect(chunks.some((c) => c.usage)).toBe(false);
    expect(assemble(chunks).text).toBe("x");
  });

  it("streams tool calls with ids and arguments in pieces", async () => {
    const args1 = { path: "notes/hello.txt", content: "hello from e2e" };
    const fake = await start([
      {
        toolCalls: [
          { name: "write_file", args: args1 },
          { name: "read_file", args: { path: "notes/hello.txt" } },
        ],
      },
    ]);
    const { chunks } = parseSse(await (await post(fake, request())).text());
    const a = assemble(chunks);
    expect(a.finish).toBe("tool_calls");
    expect(a.text).toBe("");
    expect(a.calls.map((c) => c.name)).toEqual(["write_file", "read_file"]);
    expect(JSON.parse(a.calls[0]!.args)).toEqual(args1);
    expect(JSON.parse(a.calls[1]!.args)).toEqual({ path: "notes/hello.txt" });
    expect(a.calls[0]!.id).not.toBe(a.calls[1]!.id);
    expect(a.calls.every((c) => c.id.length > 0)).toBe(true);
    const argPieces = chunks.filter(
      (c) => c.choices[0]?.delta.tool_calls?.[0]?.index === 0 && !c.choices[0].delta.tool_calls[0].id,
    );
    expect(argPieces.length).toBeGreaterThanOrEqual(2);
    expect(argPieces.length).toBeLessThanOrEqual(3);
  });

  it("answers errors with status and Retry-After, and records them", async () => {
    const fake = await start([{ status: 429, retryAfter: 2 }, { status: 503 }, { text: "ok" }]);
    const r1 = await post(fake, request());
    expect(r1.status).toBe(429);
    expect(r1.headers.get("retry-after")).toBe("2");
    expect(((await r1.json()) as { error: { type: string } }).error.type).toBe("rate_limit_error");
    const r2 = await post(fake, request());
    expect(r2.status).toBe(503);
    expect(r2.headers.get("retry-after")).toBeNull();
    await r2.text();
    const r3 = await post(fake, request());
    expect(assemble(parseSse(await r3.text()).chunks).text).toBe("ok");
    expect(fake.requests.map((r) => r.index)).toEqual([0, 1, 2]);
    // Past the end of a queue: a 400 that fails the turn quickly.
    const r4 = await post(fake, request());
    expect(r4.status).toBe(400);
    expect(await r4.text()).toContain("script exhausted");
  });

  it("delays, hangs after N chunks until the client aborts, and records the abort", async () => {
    const fake = await start([{ text: "one two three four", delayMs: 300, hangAfterChunks: 2 }]);
    const ac = new AbortController();
    const t0 = Date.now();
    const res = await fetch(`${fake.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify(request()),
      signal: ac.signal,
    });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    const reader = res.body!.getReader();
    let got = "";
    while ((got.match(/data: /g) ?? []).length < 2) {
      const { value } = await reader.read();
      got += new TextDecoder().decode(value);
    }
    const more = await Promise.race([
      reader.read().then(() => "more"),
      new Promise((r) => setTimeout(() => r("hung"), 400)),
    ]);
    expect(more).toBe("hung");
    ac.abort();
    await new Promise((r) => setTimeout(r, 100));
    expect(fake.requests[0]?.aborted).toBe(true);
    expect(fake.requests[0]?.completed).toBe(false);
  });

  it("drops the connection mid-stream", async () => {
    const fake = await start([{ text: "one two three four", dropAfterChunks: 2 }]);
    const res = await post(fake, request());
    await expect(res.text()).rejects.toThrow();
  });

  it("records request sizes and simulates the prompt cache on a shared prefix", async () => {
    const fake = await start(() => ({ text: "ok" }));
    const long = "x".repeat(4000);
    const first = request({ messages: [{ role: "system", content: long }, user("a")] });
    await (await post(fake, first)).text();
    const second = request({
      messages: [...first.messages, { role: "assistant", content: "ok" }, user("b")],
    });
    const { chunks } = parseSse(await (await post(fake, second)).text());
    const usage = assemble(chunks).usage!;
    expect(usage.prompt_tokens_details.cached_tokens).toBeGreaterThan(1000);
    expect(usage.prompt_tokens_details.cached_tokens).toBeLessThanOrEqual(usage.prompt_tokens);
    expect(fake.maxRequestBytes()).toBe(Buffer.byteLength(JSON.stringify(second)));
  });

  it("answers non-streaming requests with a chat.completion", async () => {
    const fake = await start([{ toolCalls: [{ name: "read_file", args: { path: "a" } }] }]);
    const body = (await (await post(fake, request({ stream: false }))).json()) as {
      object: string;
      choices: { message: { tool_calls: { function: { name: string; arguments: string } }[] } }[];
      usage: unknown;
    };
    expect(body.object).toBe("chat.completion");
    expect(body.choices[0]?.message.tool_calls[0]?.function).toEqual({ name: "read_file", arguments: '{"path":"a"}' });
    expect(body.usage).toBeDefined();
  });

  it("waitForRequests resolves on arrival", async () => {
    const fake = await start(() => ({ text: "ok" }));
    const waiting = fake.waitForRequests(2, 5_000);
    await (await post(fake, request())).text();
    await (await post(fake, request())).text();
    expect(await waiting).toHaveLength(2);
    await expect(fake.waitForRequests(3, 100)).rejects.toThrow(/2 of 3/);
  });
});

describe("scriptedAgent", () => {
  const steps = [
    { toolCalls: [{ name: "write_file", args: { path: "a", content: "b" } }] },
    { toolCalls: [{ name: "read_file", args: { path: "a" } }] },
    { text: "done" },
  ];
  const agent = scriptedAgent(steps);
  const call = (id: string, name: string) => ({
    role: "assistant" as const,
    content: null,
    tool_calls: [{ id, type: "function" as const, function: { name, arguments: "{}" } }],
  });
  const result = (id: string) => ({ role: "tool" as const, tool_call_id: id, content: "ok" });

  it("picks the step from the tool results after the last user message, whatever the request count", async () => {
    const base = request();
    expect(await agent(base, 0)).toBe(steps[0]);
    // A retry of the same request (any index) gets the same answer.
    expect(await agent(base, 7)).toBe(steps[0]);
    const after1 = request({ messages: [...base.messages, call("c1", "write_file"), result("c1")] });
    expect(await agent(after1, 1)).toBe(steps[1]);
    const after2 = request({ messages: [...after1.messages, call("c2", "read_file"), result("c2")] });
    expect(await agent(after2, 2)).toBe(steps[2]);
    // A new user message starts over.
    const next = request({ messages: [...after2.messages, { role: "assistant", content: "done" }, user("again")] });
    expect(await agent(next, 3)).toBe(steps[0]);
    const past = request({
      messages: [...after2.messages, call("c3", "x"), result("c3")],
    });
    expect((await agent(past, 4)).status).toBe(400);
  });

  it("answers compaction requests with a summary", async () => {
    const compaction = request({
      messages: [...request().messages, user("Write a continuation summary of the conversation so far.")],
    });
    expect(isCompactionRequest(compaction)).toBe(true);
    expect((await agent(compaction, 0)).text).toMatch(/Goal/);
    const noTools = request({
      tools: undefined,
      messages: [{ role: "system", content: "Summarize the events." }, user("…")],
    });
    expect(isCompactionRequest(noTools)).toBe(true);
    expect(isCompactionRequest(request())).toBe(false);
  });

  it("passes context to a step function", async () => {
    const seen: [number, string][] = [];
    const fn = scriptedAgent((step, ctx) => {
      seen.push([step, ctx.lastUserText]);
      return { text: `step ${step}` };
    });
    await fn(request({ messages: [user("hello"), call("c", "read_file"), result("c")] }), 0);
    expect(seen).toEqual([[1, "hello"]]);
  });
});

describe("fake external service", () => {
  it("counts hits per path and method, and holds a path until released", async () => {
    const svc = await startFakeService();
    try {
      expect(svc.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const w = (await (await fetch(`${svc.url}/write`, { method: "POST", body: "v1" })).json()) as { n: number };
      expect(w.n).toBe(1);
      const r = (await (await fetch(`${svc.url}/read?x=1`)).json()) as { value: string };
      expect(r.value).toBe("v1");
      expect(svc.hits("/write")).toBe(1);
      expect(svc.hits("/write", "POST")).toBe(1);
      expect(svc.hits("/write", "GET")).toBe(0);
      expect(svc.hits("/read", "get")).toBe(1);

      svc.hold("/write");
      let settled = false;
      const pending = fetch(`${svc.url}/write`, { method: "POST", body: "v2" }).then(async (res) => {
        settled = true;
        return res.json() as Promise<{ n: number }>;
      });
      await svc.waitForHit("/write", { n: 2, timeoutMs: 2_000 });
      await new Promise((res) => setTimeout(res, 200));
      expect(settled).toBe(false);
      expect(svc.hits("/write")).toBe(2);
      expect(svc.completed("/write")).toBe(1);
      // Other paths are not held.
      expect((await fetch(`${svc.url}/read`)).status).toBe(200);
      svc.release("/write");
      expect((await pending).n).toBe(2);
      expect(svc.completed("/write")).toBe(2);
      // Released paths are no longer held.
      expect((await fetch(`${svc.url}/write`, { method: "POST", body: "v3" })).status).toBe(200);
      expect(svc.hits("/write", "POST")).toBe(3);

      svc.respond("/redirect", { status: 302, headers: { location: `${svc.url}/read` } });
      const red = await fetch(`${svc.url}/redirect`, { redirect: "manual" });
      expect(red.status).toBe(302);
      expect(red.headers.get("location")).toBe(`${svc.url}/read`);
    } finally {
      await svc.close();
    }
  });

  it("close() does not wait for held requests", async () => {
    const svc = await startFakeService();
    svc.hold("/write");
    const pending = fetch(`${svc.url}/write`, { method: "POST", body: "x" }).catch((e: unknown) => e);
    await svc.waitForHit("/write");
    await svc.close();
    expect(await pending).toBeInstanceOf(Error);
  });
});

describe("failpoint sink", () => {
  it("resolves waitFor when the id is posted, also after the fact", async () => {
    const sink = await startFailpointSink();
    try {
      const waiting = sink.waitFor("F4", 5_000);
      await fetch(sink.url, { method: "POST", body: "F4" });
      await waiting;
      await sink.waitFor("F4", 10);
      expect(sink.received).toEqual(["F4"]);
      await expect(sink.waitFor("F5", 50)).rejects.toThrow(/F5 not reached/);
    } finally {
      await sink.close();
    }
  });
});

describe("verify-export copy", () => {
  const canonical = (v: unknown): string => {
    if (v === null || typeof v !== "object") return JSON.stringify(v);
    if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(",")}}`;
  };
  const chain = (events: Record<string, unknown>[]) => {
    let prev = "0".repeat(64);
    return events.map((e, i) => {
      const ev = { seq: i + 1, sessionId: "s1", at: "2026-01-01T00:00:00.000Z", modelVisibility: "visible", ...e };
      prev = createHash("sha256")
        .update(`${prev}\n${canonical(ev)}`, "utf8")
        .digest("hex");
      return { ...ev, digest: prev };
    });
  };
  const good = chain([
    { author: "user", content: { type: "text", text: "hi" } },
    { author: "model", content: { type: "functionCall", callId: "c1", name: "read_file", args: { path: "a" } } },
    {
      author: "runtime",
      actions: { toolDispatch: { callId: "c1", tool: "read_file", effect: "read", idempotencyKey: "k" } },
    },
    {
      author: "tool",
      content: { type: "functionResponse", callId: "c1", name: "read_file", status: "ok", response: {} },
    },
  ]);
  const ndjson = (evs: unknown[]) => `${evs.map((e) => JSON.stringify(e)).join("\n")}\n`;

  it("accepts a valid chain and reports tampering and pairing problems", () => {
    const ok = verifyExportIndependently(ndjson(good));
    expect(ok).toMatchObject({ ok: true, problems: [], pending: [] });
    expect(ok.head).toBe(good.at(-1)!.digest);

    const tampered = good.map((e) => (e.seq === 1 ? { ...e, content: { type: "text", text: "HI" } } : e));
    const bad = verifyExportIndependently(ndjson(tampered));
    expect(bad.ok).toBe(false);
    expect(bad.problems[0]).toMatch(/^seq 1: digest/);

    const noDispatch = chain([good[0]!, good[1]!, good[3]!].map(({ seq, digest, ...rest }) => rest));
    expect(verifyExportIndependently(ndjson(noDispatch)).problems).toEqual(["seq 3: ok response without dispatch"]);
  });

  it("runs as a CLI with exit code 0 / 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hw-verify-"));
    const script = fileURLToPath(new URL("./verify-export.mjs", import.meta.url).href);
    const run = (file: string) =>
      new Promise<{ code: number; out: string }>((resolve) => {
        execFile(process.execPath, [script, file], (err, stdout) => {
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout });
        });
      });
    try {
      writeFileSync(join(dir, "good.ndjson"), ndjson(good));
      writeFileSync(join(dir, "bad.ndjson"), ndjson(good.slice(1)));
      const g = await run(join(dir, "good.ndjson"));
      expect(g.code).toBe(0);
      expect(g.out).toMatch(/4 events, head [0-9a-f]{16}…, 0 calls pending, 0 problems/);
      const b = await run(join(dir, "bad.ndjson"));
      expect(b.code).toBe(1);
      expect(b.out).toContain("problem: event 1: seq 2");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
