/**
 * The object's trace export (docs/API.md#sending-traces-to-a-collector): the collector configured
 * in the environment, read once, and the outbox of closed turns the alarm sends to it.
 */
import { failpoint } from "../runtime/failpoints";
import { type ExportConfig, exportConfig } from "../telemetry/export";
import { exportClosedTurns } from "../telemetry/outbox";

export type TraceExporter = { config: ExportConfig; fetch: typeof fetch };

/** What was already said about a bad setting: each reason once per isolate, however many objects read it. */
const said = new Set<string>();

/**
 * The collector from the environment; null when none is set up or it is misconfigured, which
 * is said once in the log (and in `GET /healthz`): export is off, sessions go on.
 */
export function readExportConfig(env: Env): ExportConfig | null {
  const config = exportConfig(env as unknown as Record<string, unknown>);
  if (config && "error" in config && !said.has(config.error)) {
    said.add(config.error);
    console.error(`highwater: trace export is off: ${config.error}`);
  }
  return config && !("error" in config) ? config : null;
}

/** The trace-export outbox: closed turns go to the collector; a refusal is retried by the alarm. */
export async function exportTraces(
  exporter: TraceExporter | null,
  p: { sql: SqlStorage; sessionId: string; env: Env; rearm: () => Promise<void> },
): Promise<void> {
  if (!exporter) return;
  try {
    await exportClosedTurns({
      sql: p.sql,
      sessionId: p.sessionId,
      ...exporter,
      now: () => Date.now(),
      arm: p.rearm,
      beforeSend: () => failpoint(p.env, "F15"),
    });
  } catch (err) {
    console.error("highwater: trace export failed", err);
  }
  await p.rearm();
}

const collectors = new WeakMap<object, TraceExporter | null>();

/** The configured collector and the object's outbound fetch, read once per environment; null when none. */
export function collectorOf(env: Env): TraceExporter | null {
  if (!collectors.has(env)) {
    const config = readExportConfig(env);
    collectors.set(env, config ? { config, fetch: (i, init) => fetch(i, init) } : null);
  }
  return collectors.get(env) ?? null;
}
