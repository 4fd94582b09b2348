/**
 * Upgrades keep every existing session (issue 17 item 15, docs/API.md#upgrades). The code of an
 * earlier commit runs on a persist dir, creates sessions (two principals) and runs a turn in
 * each; then the current code starts on the same dir, and every session is read, continued with
 * a new turn and verified by its owner, and stays 404 to the other principal. The earlier
 * commits: the last one before migration 0007 (a28beb6), the last one landed before it (877735a), and the last one before the owner moved into seq 1
 * (e451a83, whose sessions hold no owner: their principal's directory vouches for them).
 * The old code is a `git archive` of the commit (no worktree is registered in the shared
 * repository), using this checkout's node_modules; nothing is installed.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { limiter } from "./crash/run-case";
import { type Api, createApi } from "./harness/api";
import { type FakeOpenAI, messageText, startFakeOpenAI } from "./harness/fake-openai";
import { makePersistDir, REPO_ROOT, startWrangler, type Wrangler, withoutBuild } from "./harness/wrangler";

const TOKEN_A = "e2e-upgrade-a";
const TOKEN_B = "e2e-upgrade-b";

/** The code of `commit`, unpacked into a temp dir, with a wrangler config that does not build. */
function checkoutOf(commit: string): { dir: string; config: string } {
  const dir = mkdtempSync(join(tmpdir(), `hw-upgrade-${commit}-`));
  const archive = execFileSync("git", ["-C", REPO_ROOT, "archive", "--format=tar", commit], {
    maxBuffer: 512 * 1024 * 1024,
  });
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
  symlinkSync(join(REPO_ROOT, "node_modules"), join(dir, "node_modules"));
  const config = join(dir, "wrangler.upgrade-test.toml");
  writeFileSync(config, withoutBuild(readFileSync(join(dir, "wrangler.toml"), "utf8")));
  return { dir, config };
}

const closedTurns = (events: { actions?: { turnClose?: { reason: string } } }[]) =>
  events.flatMap((e) => (e.actions?.turnClose ? [e.actions.turnClose.reason] : []));

// The three upgrades are independent (each its own persist dir, checkout and wrangler): two at a time.
const withSlot = limiter(2);

describe.concurrent.each([
  { commit: "a28beb6", what: "before migration 0007: the indexes a step writes, the inflight row" },
  { commit: "877735a", what: "the last landed commit" },
  { commit: "e451a83", what: "before the owner moved into seq 1" },
])("upgrading in place from $commit ($what)", ({ commit }) => {
  let fake: FakeOpenAI | undefined;
  let worker: Wrangler | undefined;
  const persistTo = makePersistDir(`hw-e2e-upgrade-${commit}-`);
  let old: { dir: string; config: string } | undefined;

  afterAll(async () => {
    await worker?.stop();
    await fake?.close();
    rmSync(persistTo, { recursive: true, force: true });
    if (old) rmSync(old.dir, { recursive: true, force: true });
  });

  it(
    "every session is still its owner's: read, continued with a new turn, verified; never the other's",
    () =>
      withSlot(async () => {
        fake = await startFakeOpenAI((body) => ({ text: `answer to: ${messageText(body.messages.at(-1))}` }));
        const vars = {
          API_TOKENS: `${TOKEN_A},${TOKEN_B}`,
          MODEL_PROVIDER: "openai",
          MODEL_BASE_URL: fake.url,
          MODEL_API_KEY: "x",
        };
        old = checkoutOf(commit);
        worker = await startWrangler({ persistTo, vars, config: old.config });
        let a: Api = createApi(worker.url, TOKEN_A);
        let b: Api = createApi(worker.url, TOKEN_B);
        const sessions: { id: string; api: "a" | "b" }[] = [];
        for (const [who, api] of [
          ["a", a],
          ["a", a],
          ["b", b],
        ] as const) {
          const s = await api.createSession({ title: `made by ${commit}` });
          await api.sendMessage(s.id, `first turn of ${s.id}`);
          await api.waitForIdle(s.id, { timeoutMs: 60_000 });
          sessions.push({ id: s.id, api: who });
        }
        const before = new Map<string, { highWater: number; headDigest: string }>();
        for (const s of sessions) {
          const page = await (s.api === "a" ? a : b).events(s.id);
          expect(closedTurns(page.events)).toEqual(["completed"]);
          before.set(s.id, { highWater: page.highWater, headDigest: page.headDigest });
        }
        await worker.stop();

        // The current code on the same persist dir.
        worker = await startWrangler({ persistTo, vars });
        a = createApi(worker.url, TOKEN_A);
        b = createApi(worker.url, TOKEN_B);
        for (const s of sessions) {
          const owner = s.api === "a" ? a : b;
          const other = s.api === "a" ? b : a;
          // Read: the session and its whole log as the old code left it.
          const got = await owner.getSession(s.id);
          expect(got).toMatchObject({ id: s.id, highWater: before.get(s.id)!.highWater });
          const page = await owner.events(s.id);
          expect(page.headDigest).toBe(before.get(s.id)!.headDigest);
          expect(page.events.some((e) => e.content?.type === "text" && e.author === "model")).toBe(true);
          // Nobody else's, through reads and writes.
          expect((await other.raw("GET", `/v1/sessions/${s.id}`)).status).toBe(404);
          expect((await other.raw("POST", `/v1/sessions/${s.id}/messages`, { text: "not yours" })).status).toBe(404);
          // Continued: a new turn on the new code.
          await owner.sendMessage(s.id, `second turn of ${s.id}`);
          const done = await owner.waitForIdle(s.id, { timeoutMs: 60_000 });
          expect(closedTurns(done.events)).toEqual(["completed", "completed"]);
          expect(
            done.events.some(
              (e) => e.content?.type === "text" && /answer to: second turn/.test(String(e.content.text)),
            ),
          ).toBe(true);
          // Verified: the old events and the new ones form one chain.
          expect(await owner.verify(s.id)).toMatchObject({ ok: true, problems: [] });
        }
        const listedA = (await a.listSessions()).sessions.map((s: { id: string }) => s.id);
        expect(listedA.sort()).toEqual(
          sessions
            .filter((s) => s.api === "a")
            .map((s) => s.id)
            .sort(),
        );
      }),
    600_000,
  );
});
