/** What the context crash files share: the scenario gate, and the checks every restart must pass. */
import { expect } from "vitest";
import { limiter } from "../crash/run-case";
import { describeEvent, type Event, verifyExportIndependently } from "../harness/api";
import { type ChatMessage, type ChatRequest, type FakeOpenAI, messageText } from "../harness/fake-openai";
import { type CrashRun, ndjsonLines, sha256Hex } from "./run-crash";

/** Scenarios at a time (each starts `wrangler dev` twice); CRASH_CTX_CONCURRENCY=1 runs them one by one. */
export const gate = limiter(Number(process.env.CRASH_CTX_CONCURRENCY ?? 2));
/** A scenario may wait for a free slot before its own ~30–60 s. */
export const SCENARIO_TIMEOUT_MS = 300_000;

export const MODEL_VARS = (fake: FakeOpenAI) => ({
  MODEL_PROVIDER: "openai",
  MODEL_BASE_URL: fake.url,
  MODEL_API_KEY: "x",
  MODEL_NAME: "fake-model",
});

export type Checkpoint = {
  id: string;
  throughSeq: number;
  sourceDigest: string;
  prevId: string | null;
  summary: string;
  placeholders?: { callId: string; sha256: string; bytes: number; preview: string }[];
  method?: string;
};
export const checkpointOf = (e: Event) => e.actions?.stateDelta?.checkpoint as Checkpoint | undefined;
export type Offload = { sha256: string; bytes: number; preview: string };
export const offloadOf = (e: Event) => e.actions?.stateDelta?.offload as Offload | undefined;
export type FnResponse = Extract<NonNullable<Event["content"]>, { type: "functionResponse" }>;

/** chars/4 of what a request sends the model (messages and tools as JSON): the budget estimator's own measure. */
export const requestTokens = (body: ChatRequest) =>
  Math.ceil(JSON.stringify({ messages: body.messages, tools: body.tools ?? [] }).length / 4);

export const show = (run: CrashRun | undefined) =>
  run ? `steps:\n${run.steps.join("\n")}\nevents:\n${run.final.events.map(describeEvent).join("\n")}` : "(no run)";

/** Every event line exported before the kill is still there, byte for byte, at the same place. */
export function expectPrefixKept(run: CrashRun) {
  const before = ndjsonLines(run.preKillExport);
  const after = ndjsonLines(run.final.exportNdjson);
  expect(before.length).toBe(run.preKillSession.highWater);
  expect(after.length).toBe(run.final.session.highWater);
  expect(after.length).toBeGreaterThan(before.length);
  for (let i = 0; i < before.length; i++) expect(after[i], `export line ${i + 1}`).toBe(before[i]);
  // And nothing was committed while the object hung at the failpoint.
  expect(run.atReportExport).toBe(run.preKillExport);
}

export async function expectVerified(run: CrashRun) {
  const { session, verify, exportNdjson, events } = run.final;
  expect(verify).toEqual({ ok: true, highWater: session.highWater, headDigest: session.headDigest, problems: [] });
  const check = verifyExportIndependently(exportNdjson);
  expect(check.problems).toEqual([]);
  expect(check.ok).toBe(true);
  expect(check.head).toBe(session.headDigest);
  expect(check.events).toEqual(events);
}

/** The blob behind an archive ref, read over HTTP, with its size and digest checked here. */
export async function readBlob(run: CrashRun, sha256: string, bytes: number): Promise<Buffer> {
  const res = await run.api.raw("GET", `/v1/sessions/${run.sessionId}/archive/${sha256}`);
  const body = Buffer.from(await res.arrayBuffer());
  expect(res.status, `GET archive/${sha256}: ${body.toString("utf8").slice(0, 300)}`).toBe(200);
  expect(body.byteLength).toBe(bytes);
  expect(sha256Hex(body)).toBe(sha256);
  return body;
}

/** The stamp each compaction answer carries, so a checkpoint names the request that produced it. */
export const stampOf = (summary: string) => /\[made by request (\d+)\]/.exec(summary)?.[1];

/** The JSON a tool message carries (Chat Completions tool content is the JSON text of the output). */
export function toolOutput(m: ChatMessage | undefined): unknown {
  try {
    return JSON.parse(messageText(m));
  } catch {
    return undefined;
  }
}
