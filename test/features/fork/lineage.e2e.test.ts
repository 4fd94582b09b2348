/**
 * docs/API.md §6 fork, §7.30, end to end on a real `wrangler dev`: a fork's lineage checks out with
 * the repository's `tools/verify-export.mjs --parent`, its workspace is the parent's as of
 * `throughSeq` (after an edit_file), and its first model request starts from the parent's prefix.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, createApi, type Event } from "../../e2e/harness/api";
import { type FakeOpenAI, messageText, scriptedAgent, startFakeOpenAI } from "../../e2e/harness/fake-openai";
import { makePersistDir, REPO_ROOT, startWrangler, type Wrangler } from "../../e2e/harness/wrangler";

const run = promisify(execFile);
const TOKEN = "e2e-token";
const TASK = "Write notes/a.txt, then fix its second word.";

/** `node tools/verify-export.mjs --parent P F`: exit code and output. */
async function verifyLineage(dir: string, parent: string, fork: string, name: string) {
  const p = join(dir, `${name}-parent.ndjson`);
  const f = join(dir, `${name}-fork.ndjson`);
  writeFileSync(p, parent);
  writeFileSync(f, fork);
  try {
    const { stdout } = await run("node", [join(REPO_ROOT, "tools/verify-export.mjs"), "--parent", p, f]);
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code?: number; stdout?: string };
    return { code: e.code ?? 1, out: e.stdout ?? "" };
  }
}

describe("fork lineage, end to end", () => {
  let fake: FakeOpenAI;
  let worker: Wrangler;
  let api: Api;
  let persistTo: string;
  let dir: string;

  beforeAll(async () => {
    fake = await startFakeOpenAI(
      scriptedAgent((step, ctx) => {
        if (ctx.lastUserText !== TASK) return { text: "continuing in the fork" };
        if (step === 0)
          return { toolCalls: [{ name: "write_file", args: { path: "notes/a.txt", content: "one two" } }] };
        if (step === 1)
          return { toolCalls: [{ name: "edit_file", args: { path: "notes/a.txt", oldText: "two", newText: "2" } }] };
        return { text: "done" };
      }),
    );
    persistTo = makePersistDir();
    dir = mkdtempSync(join(tmpdir(), "hw-fork-"));
    worker = await startWrangler({
      persistTo,
      vars: { API_TOKENS: TOKEN, MODEL_PROVIDER: "openai", MODEL_BASE_URL: fake.url, MODEL_API_KEY: "x" },
    });
    api = createApi(worker.url, TOKEN);
  });

  afterAll(async () => {
    await worker?.stop();
    await fake?.close();
    for (const d of [persistTo, dir]) if (d) rmSync(d, { recursive: true, force: true });
  });

  it("verifies against the parent's export, keeps the edited workspace, and continues from the prefix", async () => {
    const parent = await api.createSession({ title: "parent" }).catch((e) => {
      throw new Error(`${e}\n${worker.logs().slice(-3000)}`);
    });
    await api.sendMessage(parent.id, TASK);
    const done = await api.waitForIdle(parent.id, { timeoutMs: 120_000 });
    const parentExport = await api.exportNdjson(parent.id);
    const events = parentExport
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Event);
    const editDispatch = events.find((e) => e.actions?.toolDispatch?.tool === "edit_file")!;

    // At the head: the edited file; inside the turn (edit dispatched, unanswered): the file before the edit.
    const atHead = await api.raw("POST", `/v1/sessions/${parent.id}/fork`, { throughSeq: done.session.highWater });
    expect(atHead.status, await atHead.clone().text()).toBe(201);
    const head = (await atHead.json()) as { id: string; status: string };
    const inTurn = (await (
      await api.raw("POST", `/v1/sessions/${parent.id}/fork`, { throughSeq: editDispatch.seq })
    ).json()) as { id: string };

    for (const [name, id] of [
      ["head", head.id],
      ["in-turn", inTurn.id],
    ] as const) {
      const r = await verifyLineage(dir, parentExport, await api.exportNdjson(id), name);
      expect(r.code, r.out).toBe(0);
    }
    // Against another session's export the lineage fails.
    const other = await api.createSession({});
    const wrong = await verifyLineage(dir, await api.exportNdjson(other.id), await api.exportNdjson(head.id), "wrong");
    expect(wrong.code).toBe(1);
    expect(wrong.out).toContain("lineage");

    expect(await api.file(head.id, "notes/a.txt")).toBe("one 2");
    expect(await api.file(head.id, "notes/a.txt")).toBe(await api.file(parent.id, "notes/a.txt"));
    expect(await api.file(inTurn.id, "notes/a.txt")).toBe("one two");
    const inTurnEvents = (await api.exportNdjson(inTurn.id))
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Event);
    expect(
      inTurnEvents.filter((e) => e.content?.type === "functionResponse").map((e) => (e.content as any).status),
    ).toEqual(["interrupted"]);
    expect(inTurnEvents.at(-1)?.actions?.turnClose?.reason).toBe("stopped");

    // The fork's first request starts with the parent's conversation.
    const before = fake.chatRequests().length;
    await api.sendMessage(head.id, "and now?");
    await api.waitForIdle(head.id, { timeoutMs: 120_000 });
    const first = fake.chatRequests()[before]!.body.messages;
    expect(messageText(first[1])).toBe(TASK);
    expect(first.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "user",
    ]);
  });
});
