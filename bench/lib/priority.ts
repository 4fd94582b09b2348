/**
 * The bench's scheduling priority (README: Benchmarks). Linux shares the CPU between autogroups
 * (one per session) before it looks at a process's nice, and a child spawned `detached` starts a
 * session, and so an autogroup, of its own at nice 0: each such child is given the runner's.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

/** The nice of an autogroup (`/proc/<pid>/autogroup`), or null where there is none. */
function autogroupNice(pid: number | "self"): number | null {
  try {
    const m = /nice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, "utf8"));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/**
 * Asks for nice `wanted` for this process (what it starts inherits it) and for its autogroup;
 * returns what it got. Without the right to raise them (not root) the run goes on as it is.
 */
export function raisePriority(wanted: number): string {
  try {
    setPriority(0, wanted);
  } catch {
    // Not permitted (no CAP_SYS_NICE).
  }
  try {
    writeFileSync("/proc/self/autogroup", String(wanted));
  } catch {
    // No autogroups (another OS, a kernel without them), or not permitted.
  }
  const group = autogroupNice("self");
  return `${getPriority(0)}${group === null ? "" : `, autogroup nice ${group}`}`;
}

/** Gives a child that started a session of its own (`detached`) this process's autogroup nice, if raised. */
export function shareAutogroup(pid: number | undefined): void {
  const mine = autogroupNice("self");
  if (pid === undefined || mine === null || mine >= 0) return;
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(mine));
  } catch {
    // Gone already, or not permitted: it runs at the default.
  }
}
