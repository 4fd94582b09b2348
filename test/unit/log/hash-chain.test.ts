import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { canonical, chainDigest, type Event, GENESIS_DIGEST, sha256Hex, verifyRows } from "../../../src/log";
import { SMALL_TEXT } from "../../../src/log/hash";
import { newLog } from "../support/fixtures";

/** The independent verifier, a verbatim copy of the one published beside the contract. */
const VERIFY_EXPORT = fileURLToPath(new URL("../../../tools/verify-export.mjs", import.meta.url).href);

type Row = { seq: number; body: string; digest: string };

/** Re-chains events with the runtime's canonical + chainDigest, as the store does on append. */
function chain(events: Event[]): Event[] {
  let prev = GENESIS_DIGEST;
  return events.map((e) => {
    const { digest: _fake, ...rest } = e;
    const digest = chainDigest(prev, canonical(rest));
    prev = digest;
    return { ...rest, digest } as Event;
  });
}

/** Stored rows: the body is the canonical text exactly as hashed (docs/API.md §3). */
function rowsOf(events: Event[]): Row[] {
  return events.map(({ digest, ...rest }) => ({ seq: rest.seq, body: canonical(rest), digest }));
}

/** A small, well-formed session: create, a user turn, a read call, a rejected approval, close. */
function goodEvents(): Event[] {
  const ev = newLog();
  ev.created({ options: { title: "chain" } });
  ev.user('hello "world" ✓ 😀\nline two');
  ev.modelRequest();
  ev.modelCall("c1", "read_file", { path: "a.txt" });
  ev.modelCall("c2", "delete_file", { path: "b.txt" });
  ev.dispatch("c1", "read");
  ev.response("c1", "ok", { content: "A", lines: 1 });
  ev.permissionRequest("c2", "apr_2");
  ev.permissionDecision("apr_2", "reject", "no");
  ev.response("c2", "rejected", { reason: "no" });
  ev.modelRequest();
  ev.modelText("done", { tokenUsage: { inputTokens: 10, outputTokens: 2 }, endInvocation: true });
  ev.turnClose("completed");
  return chain(ev.events);
}

describe("hash chain (docs/API.md §3)", () => {
  it("genesis is 64 zeros", () => {
    expect(GENESIS_DIGEST).toBe("0".repeat(64));
  });

  it("digest(n) = sha256_hex(utf8(digest(n-1) + '\\n' + canonical(event without digest))), recomputed independently", () => {
    const events = goodEvents();
    let prev = "0".repeat(64);
    for (const e of events) {
      const { digest, ...rest } = e;
      // Independent canonical: sorted keys via a JSON.stringify replacer (no integer-like keys in
      // these events, so object key order is insertion order), digest via node:crypto.
      const body = JSON.stringify(rest, (_k, v) =>
        v && typeof v === "object" && !Array.isArray(v)
          ? Object.fromEntries(
              Object.keys(v)
                .sort()
                .map((k) => [k, v[k]]),
            )
          : v,
      );
      const want = createHash("sha256")
        .update(Buffer.from(`${prev}\n${body}`, "utf8"))
        .digest("hex");
      expect(digest, `seq ${e.seq}`).toBe(want);
      expect(digest).toMatch(/^[0-9a-f]{64}$/);
      prev = digest;
    }
  });

  it("sha256Hex hashes UTF-8 (known vectors)", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex("é")).toBe(
      createHash("sha256")
        .update(Buffer.from([0xc3, 0xa9]))
        .digest("hex"),
    );
    expect(sha256Hex(new Uint8Array([0xc3, 0xa9]))).toBe(sha256Hex("é"));
  });

  it("changing any earlier event changes every later digest", () => {
    const a = goodEvents();
    const b = chain(a.map((e) => (e.seq === 2 ? { ...e, content: { type: "text" as const, text: "hello!" } } : e)));
    expect(b[0]!.digest).toBe(a[0]!.digest);
    for (let i = 1; i < a.length; i++) expect(b[i]!.digest).not.toBe(a[i]!.digest);
  });
});

describe("verifyRows", () => {
  const good = goodEvents();
  const head = good[good.length - 1]!.digest;

  it("reports ok, highWater and headDigest for a good chain", () => {
    expect(verifyRows(rowsOf(good), "s1")).toEqual({
      ok: true,
      highWater: good.length,
      headDigest: head,
      problems: [],
    });
  });

  it("an empty log is ok at the genesis digest", () => {
    expect(verifyRows([], "s1")).toEqual({ ok: true, highWater: 0, headDigest: GENESIS_DIGEST, problems: [] });
  });

  /** Mutations of the good log and the exact problems verifyRows must report. */
  const cases: { name: string; rows: () => Row[]; problems: string[] }[] = [
    {
      name: "a tampered body (digest kept)",
      rows: () => {
        const rows = rowsOf(good);
        rows[1] = { ...rows[1]!, body: rows[1]!.body.replace("hello", "HELLO") };
        return rows;
      },
      problems: ["seq 2: digest mismatch"],
    },
    {
      name: "a tampered digest (the next event no longer chains either)",
      rows: () => {
        const rows = rowsOf(good);
        rows[3] = { ...rows[3]!, digest: "f".repeat(64) };
        return rows;
      },
      problems: ["seq 4: digest mismatch", "seq 5: digest mismatch"],
    },
    {
      name: "a gap in seq (chain itself intact)",
      rows: () => {
        const ev = newLog();
        ev.created();
        ev.user("a");
        ev.user("b");
        const [e1, e2, e3] = ev.events;
        return rowsOf(chain([e1!, e2!, { ...e3!, seq: 4 }]));
      },
      problems: ["seq 4: expected 3"],
    },
    {
      name: "a duplicated seq",
      rows: () => {
        const ev = newLog();
        ev.created();
        ev.user("a");
        ev.user("b");
        ev.user("c");
        const [e1, e2, e3, e4] = ev.events;
        return rowsOf(chain([e1!, e2!, { ...e3!, seq: 2 }, { ...e4!, seq: 3 }]));
      },
      problems: ["seq 2: expected 3"],
    },
    {
      name: "another sessionId",
      rows: () => rowsOf(chain(good.map((e) => (e.seq === 3 ? { ...e, sessionId: "s2" } : e)))),
      problems: ["seq 3: another sessionId"],
    },
    {
      name: "a response without dispatch",
      rows: () => {
        const ev = newLog();
        ev.created();
        ev.user("go");
        ev.modelRequest();
        ev.modelCall("c1", "write_file", { path: "x", content: "y" });
        ev.response("c1", "ok");
        return rowsOf(chain(ev.events));
      },
      problems: ["seq 5: ok response without dispatch"],
    },
    {
      name: "an interrupted response without dispatch",
      rows: () => {
        const ev = newLog();
        ev.created();
        ev.user("go");
        ev.modelRequest();
        ev.modelCall("c1", "write_file", {});
        ev.response("c1", "interrupted");
        return rowsOf(chain(ev.events));
      },
      problems: ["seq 5: interrupted response without dispatch"],
    },
    {
      name: "a dispatch of an unknown call",
      rows: () => {
        const ev = newLog();
        ev.created();
        ev.user("go");
        ev.dispatch("ghost", "read");
        return rowsOf(chain(ev.events));
      },
      problems: ["seq 3: dispatch of unknown call ghost"],
    },
    {
      name: "a response to an unknown call",
      rows: () => {
        const ev = newLog();
        ev.created();
        ev.user("go");
        ev.response("ghost", "rejected");
        return rowsOf(chain(ev.events));
      },
      problems: ["seq 3: response to unknown call ghost"],
    },
    {
      name: "a second response to the same call",
      rows: () => {
        const ev = newLog();
        ev.created();
        ev.user("go");
        ev.modelRequest();
        ev.modelCall("c1", "read_file", {});
        ev.dispatch("c1", "read");
        ev.response("c1", "ok");
        ev.response("c1", "error");
        return rowsOf(chain(ev.events));
      },
      problems: ["seq 7: second response to c1"],
    },
    {
      name: "a body whose seq disagrees with its row",
      rows: () => {
        const { digest: _d, ...rest } = good[2]!;
        const body = canonical({ ...rest, seq: 9 });
        return [...rowsOf(good).slice(0, 2), { seq: 3, body, digest: chainDigest(good[1]!.digest, body) }];
      },
      problems: ["seq 3: body says seq 9"],
    },
  ];

  it.each(cases)("reports $name", ({ rows, problems }) => {
    const result = verifyRows(rows(), "s1");
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual(problems);
  });

  it("allows a rejected response without dispatch", () => {
    const ev = newLog();
    ev.created();
    ev.user("go");
    ev.modelRequest();
    ev.modelCall("c1", "delete_file", { path: "x" });
    ev.response("c1", "rejected", { reason: "stopped" });
    const result = verifyRows(rowsOf(chain(ev.events)), "s1");
    expect(result).toMatchObject({ ok: true, highWater: 5, problems: [] });
  });

  it("checks the sessionId it is given, not the first row's", () => {
    expect(verifyRows(rowsOf(good), "s2").problems).toHaveLength(good.length);
  });
});

describe.concurrent("tools/verify-export.mjs agrees on the same events", () => {
  const dir = mkdtempSync(join(tmpdir(), "hw-chain-"));

  /** Writes the export (one Event a line, digest included) and runs the independent verifier. */
  function runVerifier(events: Event[], name: string) {
    const file = join(dir, `${name}.ndjson`);
    writeFileSync(file, `${events.map((e) => JSON.stringify(e)).join("\n")}\n`);
    return new Promise<{ status: number | null; out: string }>((resolve) => {
      execFile(process.execPath, [VERIFY_EXPORT, file], { encoding: "utf8", timeout: 10_000 }, (err, stdout) =>
        resolve({ status: err ? ((err as { code?: number }).code ?? null) : 0, out: stdout }),
      );
    });
  }

  it("exits 0 for the good export", async () => {
    const r = await runVerifier(goodEvents(), "good");
    expect(r.out).toContain("0 problems");
    expect(r.status).toBe(0);
  });

  it("exits 1 when an event's body was changed after hashing", async () => {
    const tampered = goodEvents().map((e) =>
      e.seq === 7 && e.content?.type === "functionResponse"
        ? { ...e, content: { ...e.content, response: "forged" } }
        : e,
    );
    const r = await runVerifier(tampered, "tampered");
    expect(r.out).toContain("problem: seq 7: digest");
    expect(r.status).toBe(1);
  });

  it("exits 1 for a response without dispatch, even with a valid chain", async () => {
    const ev = newLog();
    ev.created();
    ev.user("go");
    ev.modelRequest();
    ev.modelCall("c1", "write_file", {});
    ev.response("c1", "ok");
    const r = await runVerifier(chain(ev.events), "nodispatch");
    expect(r.out).toContain("ok response without dispatch");
    expect(r.status).toBe(1);
  });
});

describe("sha256Hex on either side of the small-text bound", () => {
  it("gives node:crypto's digest for texts just under, at and over SMALL_TEXT, and for bytes", () => {
    const node = (d: string | Uint8Array) => createHash("sha256").update(d).digest("hex");
    for (const n of [SMALL_TEXT - 1, SMALL_TEXT, SMALL_TEXT + 1]) {
      const t = "é😀x".repeat(Math.ceil(n / 4)).slice(0, n);
      expect(sha256Hex(t), `length ${n}`).toBe(node(t));
      expect(chainDigest(GENESIS_DIGEST, t)).toBe(node(`${GENESIS_DIGEST}\n${t}`));
    }
    const bytes = new TextEncoder().encode("bytes go to node:crypto");
    expect(sha256Hex(bytes)).toBe(node(bytes));
  });
});
