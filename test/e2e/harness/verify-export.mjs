#!/usr/bin/env node
// Independent check of a session export against docs/API.md §3: contiguous seq,
// hash chain, one sessionId, and call / dispatch / response pairing.
//   node verify-export.mjs export.ndjson
//   node verify-export.mjs http://127.0.0.1:8787/v1/sessions/<id>/export TOKEN
// Exit 0 when the export verifies; every problem is printed.
//
// Origin: a copy of the project's shared tools/verify-export.mjs (written alongside
// the contract that docs/API.md now states), kept here so the repository is self-contained. The checking logic is
// unchanged (only reformatted to the project's Biome style); it is wrapped in
// `verifyExport(text)` so tests can import it, and the CLI above still works when this
// file is run directly. It deliberately imports nothing from src/: it must keep
// agreeing with the contract, not with the implementation.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const canonical = (v) => {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  return `{${Object.keys(v)
    .filter((k) => v[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
    .join(",")}}`;
};
const sha256 = (s) => createHash("sha256").update(s, "utf8").digest("hex");

/**
 * Verify NDJSON export text.
 * @param {string} text
 * @returns {{ ok: boolean, problems: string[], events: any[], head: string, pending: string[] }}
 */
export function verifyExport(text) {
  const problems = [];
  const events = [];
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    try {
      events.push(JSON.parse(line));
    } catch {
      problems.push(`line ${i + 1}: not JSON`);
    }
  });

  let prev = "0".repeat(64);
  const calls = new Map(),
    dispatched = new Set(),
    answered = new Map();
  for (const [i, ev] of events.entries()) {
    if (ev.seq !== i + 1) problems.push(`event ${i + 1}: seq ${ev.seq}`);
    if (ev.sessionId !== events[0].sessionId) problems.push(`seq ${ev.seq}: another sessionId`);
    const { digest, ...rest } = ev;
    const want = sha256(`${prev}\n${canonical(rest)}`);
    if (digest !== want)
      problems.push(`seq ${ev.seq}: digest ${String(digest).slice(0, 12)}… != ${want.slice(0, 12)}…`);
    prev = digest;
    const c = ev.content,
      d = ev.actions?.toolDispatch;
    if (c?.type === "functionCall") calls.set(c.callId, ev.seq);
    if (d) {
      if (!calls.has(d.callId)) problems.push(`seq ${ev.seq}: dispatch of unknown call ${d.callId}`);
      dispatched.add(d.callId);
    }
    if (c?.type === "functionResponse") {
      if (!calls.has(c.callId)) problems.push(`seq ${ev.seq}: response to unknown call ${c.callId}`);
      if (answered.has(c.callId)) problems.push(`seq ${ev.seq}: second response to ${c.callId}`);
      if (c.status !== "rejected" && !dispatched.has(c.callId))
        problems.push(`seq ${ev.seq}: ${c.status} response without dispatch`);
      answered.set(c.callId, ev.seq);
    }
  }
  const pending = [...calls.keys()].filter((id) => !answered.has(id));
  return { ok: problems.length === 0, problems, events, head: prev, pending };
}

async function main() {
  const [src, token] = process.argv.slice(2);
  if (!src) {
    console.error("usage: verify-export.mjs <file.ndjson | export URL> [token]");
    process.exit(2);
  }

  const text = /^https?:/.test(src)
    ? await (await fetch(src, { headers: token ? { authorization: `Bearer ${token}` } : {} })).text()
    : readFileSync(src === "-" ? 0 : src, "utf8");

  const { problems, events, head, pending } = verifyExport(text);
  for (const p of problems) console.log(`problem: ${p}`);
  console.log(
    `${events.length} events, head ${head.slice(0, 16)}…, ${pending.length} calls pending, ${problems.length} problems`,
  );
  process.exit(problems.length ? 1 : 0);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
