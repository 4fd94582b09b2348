/**
 * The timeline chart: model calls (with each retry attempt), tool calls, approval waits, turns,
 * and compactions, recoveries and restarts as marks, on one time axis, drawn as SVG. Below it,
 * where the time went, so a person sees at a glance what a long task spent its time on.
 */
import { html, svg, type TemplateResult } from "lit";
import type { Mark, Span, SpanKind } from "./fold";
import { formatDuration } from "./format";

const LANES: { kind: SpanKind | "marks"; label: string }[] = [
  { kind: "turn", label: "Turns" },
  { kind: "model", label: "Model calls" },
  { kind: "attempt", label: "Attempts" },
  { kind: "tool", label: "Tool calls" },
  { kind: "approval", label: "Approvals" },
  { kind: "marks", label: "Events" },
];
const LANE_H = 30;
const GUTTER = 96;
const AXIS_H = 22;
/** A generous width of one character of the axis labels (11 px sans-serif). */
const CHAR_W = 7;

/** Seconds between ticks that give about `n` ticks over `range` ms. */
function tickStep(range: number, n: number): number {
  const steps = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400,
  ].map((s) => s * 1000);
  return steps.find((s) => range / s <= n) ?? steps.at(-1)!;
}

export type TimeTotals = { kind: SpanKind; label: string; ms: number; count: number; extra?: string };

/** Busy time per kind (overlaps within a kind counted once), for the "where the time went" list. */
export function totals(spans: Span[], now: number): TimeTotals[] {
  const by = (k: SpanKind) => spans.filter((s) => s.kind === k);
  const union = (list: Span[]) => {
    const iv = list.map((s) => [s.start, s.end ?? now] as const).sort((a, b) => a[0] - b[0]);
    let ms = 0;
    let cur: [number, number] | null = null;
    for (const [a, b] of iv) {
      if (!cur || a > cur[1]) {
        if (cur) ms += cur[1] - cur[0];
        cur = [a, b];
      } else cur[1] = Math.max(cur[1], b);
    }
    if (cur) ms += cur[1] - cur[0];
    return ms;
  };
  const attempts = by("attempt");
  const failed = attempts.filter((a) => a.outcome && a.outcome !== "ok").length;
  return [
    { kind: "turn", label: "Turns open", ms: union(by("turn")), count: by("turn").length },
    {
      kind: "model",
      label: "Model calls",
      ms: union(by("model")),
      count: by("model").length,
      ...(failed ? { extra: `${failed} failed attempt${failed === 1 ? "" : "s"} retried` } : {}),
    },
    { kind: "tool", label: "Tool calls", ms: union(by("tool")), count: by("tool").length },
    { kind: "approval", label: "Waiting for approval", ms: union(by("approval")), count: by("approval").length },
  ];
}

/** A tick's label: right of its line, or left of it where it would run past the chart's edge. */
function tickLabel(at: number, width: number, text: string) {
  const end = at + 3 + text.length * CHAR_W > width;
  return svg`<text class="tick-label" x=${end ? at - 3 : at + 3} y=${AXIS_H - 8} text-anchor=${end ? "end" : "start"}>${text}</text>`;
}

export function timelineView(spans: Span[], marks: Mark[], now: number, width: number): TemplateResult {
  if (spans.length === 0 && marks.length === 0)
    return html`<p class="muted empty">Nothing has happened yet: send a message and the timeline fills in.</p>`;
  const t0 = Math.min(...spans.map((s) => s.start), ...marks.map((m) => m.at));
  const t1 = Math.max(t0 + 10, ...spans.map((s) => s.end ?? now), ...marks.map((m) => m.at));
  const plotW = Math.max(120, width - GUTTER - 12);
  const x = (t: number) => GUTTER + ((t - t0) / (t1 - t0)) * plotW;
  const height = AXIS_H + LANES.length * LANE_H + 4;
  const step = tickStep(t1 - t0, Math.max(2, Math.floor(plotW / 90)));
  const ticks: number[] = [];
  for (let t = 0; t <= t1 - t0; t += step) ticks.push(t);
  const laneY = (k: string) => AXIS_H + LANES.findIndex((l) => l.kind === k) * LANE_H;

  const bar = (s: Span) => {
    const y = laneY(s.kind) + 6;
    const x0 = x(s.start);
    const w = Math.max(2, x(s.end ?? now) - x0);
    const dur = (s.end ?? now) - s.start;
    const state = s.end === undefined ? "open" : (s.outcome ?? "");
    return svg`<rect class="bar ${s.kind}" data-outcome=${state} x=${x0.toFixed(1)} y=${y} width=${w.toFixed(1)} height=${LANE_H - 12} rx="2"><title>${s.label} — ${formatDuration(dur)}${s.end === undefined ? " so far" : ""}${s.outcome ? ` (${s.outcome})` : ""} · seq ${s.seq}</title></rect>`;
  };
  const mark = (m: Mark) => {
    const cx = x(m.at);
    const y = laneY("marks") + LANE_H / 2;
    return svg`<g class="mark ${m.kind}"><path d="M${cx.toFixed(1)} ${y - 7} l6 7 l-6 7 l-6 -7 z"></path><title>${m.label} · seq ${m.seq}</title></g>`;
  };

  const tot = totals(spans, now);
  const wall = t1 - t0;
  return html`
    <figure class="timeline">
      <svg width=${width} height=${height} role="img" aria-label=${`Timeline over ${formatDuration(wall)}: ${tot
        .filter((t) => t.count)
        .map((t) => `${t.label.toLowerCase()} ${formatDuration(t.ms)}`)
        .join(", ")}`}>
        ${ticks.map(
          (t) => svg`<line class="tick" x1=${x(t0 + t)} x2=${x(t0 + t)} y1=${AXIS_H - 4} y2=${height}></line>
            ${tickLabel(x(t0 + t), width, `+${formatDuration(t)}`)}`,
        )}
        ${LANES.map(
          (l, i) => svg`<text class="lane-label" x="4" y=${AXIS_H + i * LANE_H + LANE_H / 2 + 4}>${l.label}</text>
            <line class="lane" x1=${GUTTER} x2=${width} y1=${AXIS_H + (i + 1) * LANE_H} y2=${AXIS_H + (i + 1) * LANE_H}></line>`,
        )}
        ${spans.map(bar)} ${marks.map(mark)}
      </svg>
      <figcaption>
        <strong>Where the time went</strong> (${formatDuration(wall)} from first to last event)
        <ul class="totals">
          ${tot.map(
            (t) => html`<li data-kind=${t.kind}>
              <span class="swatch ${t.kind}"></span>${t.label}: <strong>${formatDuration(t.ms)}</strong>
              <span class="muted">(${t.count}${t.extra ? `; ${t.extra}` : ""})</span>
            </li>`,
          )}
          <li><span class="swatch marks"></span>Compactions, recoveries, restarts, errors: ${marks.length}</li>
        </ul>
      </figcaption>
    </figure>
  `;
}
