/**
 * The runtime's calls into its features' hooks (./feature.ts): what they show the model at each
 * call, their work before a turn's first model call, their outboxes and the hosts they reach.
 */
import type { BlobStore, EventDraft } from "../log";
import type { SessionSummary } from "../projections";
import type { SqlLike } from "../storage/sql";
import type { AnyTool } from "../tools/registry";
import type { RuntimeDeps } from "./deps";
import type { DeliverPort, RuntimeFeature, TurnBase, TurnPort } from "./feature";

/** What the features show at a model call: system text in list order, and their tools. */
export type Shown = { system: string[]; tools: AnyTool[] };

const NOTHING: Shown = { system: [], tools: [] };

/** `context` of every feature, computed once per summary (a commit makes a new summary). */
export class FeatureContext {
  #cache = new WeakMap<SessionSummary, Shown>();

  constructor(
    private readonly features: readonly RuntimeFeature[],
    private readonly blobs: BlobStore,
  ) {}

  shown(s: SessionSummary): Shown {
    let out = this.#cache.get(s);
    if (out) return out;
    out = NOTHING;
    const readBlob = (sha256: string) => this.blobs.readText(sha256);
    for (const f of this.features) {
      if (!f.context) continue;
      const c = f.context({ summary: s, slice: s.features?.[f.name], readBlob });
      if (!c.system && !c.tools?.length) continue;
      out = {
        system: c.system ? [...out.system, c.system] : out.system,
        tools: c.tools?.length ? [...out.tools, ...c.tools] : out.tools,
      };
    }
    this.#cache.set(s, out);
    return out;
  }
}

/** What `beforeTurn` reads of the runtime. */
type TurnHost = {
  readonly deps: Pick<RuntimeDeps, "sessionId" | "store" | "principal" | "env">;
  readonly features: readonly RuntimeFeature[];
  readonly signal: AbortSignal;
  now(): number;
};

/** Runs every feature's `beforeTurn` in list order and gathers their drafts. */
export async function beforeTurnDrafts(rt: TurnHost, summary: SessionSummary, base: TurnBase): Promise<EventDraft[]> {
  const blobs = rt.deps.store.blobs;
  const port: Omit<TurnPort, "slice"> = {
    summary,
    options: summary.options,
    sessionId: rt.deps.sessionId,
    base,
    signal: rt.signal,
    principal: rt.deps.principal?.() ?? null,
    env: rt.deps.env ?? {},
    now: () => rt.now(),
    putBlob: (data, mediaType) => blobs.put(data, mediaType),
    readBlob: (sha256) => blobs.readText(sha256),
  };
  const out: EventDraft[] = [];
  for (const f of rt.features) {
    if (!f.beforeTurn) continue;
    out.push(...(await f.beforeTurn({ ...port, slice: summary.features?.[f.name] })));
  }
  return out;
}

/** The earliest time any feature needs the alarm, or null. */
export function featuresDue(
  sql: SqlLike,
  features: readonly RuntimeFeature[],
  summary: SessionSummary | null = null,
  now = Date.now(),
): number | null {
  let due: number | null = null;
  for (const f of features) {
    const at = f.nextDue?.(sql, summary, now) ?? null;
    if (at !== null && (due === null || at < due)) due = at;
  }
  return due;
}

/** What `deliver` reads of the runtime. */
type DeliverHost = {
  readonly deps: Pick<RuntimeDeps, "sessionId" | "sql" | "env" | "fetch">;
  readonly features: readonly RuntimeFeature[];
  now(): number;
  arm(): Promise<void>;
};

/** The features' outboxes (`deliver`) in list order; a throw is logged. Whether any feature has one. */
export async function deliverFeatures(rt: DeliverHost): Promise<boolean> {
  const port: DeliverPort = {
    sql: rt.deps.sql,
    env: rt.deps.env ?? {},
    sessionId: rt.deps.sessionId,
    fetch: rt.deps.fetch,
    now: () => rt.now(),
    arm: () => rt.arm(),
  };
  let delivered = false;
  for (const f of rt.features) {
    if (!f.deliver) continue;
    delivered = true;
    try {
      await f.deliver(port);
    } catch (err) {
      console.error(`highwater: feature ${f.name} failed to deliver`, err);
    }
  }
  return delivered;
}

/** Hosts `http_fetch` refuses: those the features reach through their own tools. */
export function featuresDeniedHosts(features: readonly RuntimeFeature[], env: Record<string, unknown>): string[] {
  // Neither changes while an object lives: listed once per pair, a copy handed to each call.
  let byEnv = deniedByFeatures.get(features);
  if (!byEnv) {
    byEnv = new WeakMap();
    deniedByFeatures.set(features, byEnv);
  }
  let hosts = byEnv.get(env);
  if (!hosts) {
    hosts = features.flatMap((f) => f.deniedHosts?.(env) ?? []);
    byEnv.set(env, hosts);
  }
  return [...hosts];
}

const deniedByFeatures = new WeakMap<readonly RuntimeFeature[], WeakMap<object, readonly string[]>>();
