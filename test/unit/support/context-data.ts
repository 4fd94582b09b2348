/** Data the context tests share: a seeded PRNG and a summary in the shape compaction asks for. */

/** A deterministic PRNG (mulberry32) for generated logs. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const VALID_SUMMARY = [
  "Summary of the session so far.",
  "",
  "## Goal and deliverable",
  "Write a report in report.md.",
  "",
  "## Progress and next steps",
  "Drafted sections 1-3 (seq 12-40). Next: section 4.",
  "",
  "## Constraints, decisions and facts",
  "Use British spelling.",
  "",
  "## Open items",
  "None.",
  "",
  "## Key files and event references",
  "report.md (write_file at seq 40).",
].join("\n");
