/**
 * Named crash boundaries (docs/design.md §5), off by default. When `HW_FAILPOINT` names a
 * boundary, the object reports it to `HW_FAILPOINT_URL` (the test harness, which then
 * kills the whole process group with SIGKILL) and never goes on. The report is an
 * outgoing fetch, so the output gate holds it until every write before it is durable.
 */
export type FailpointId =
  | "F0"
  | "F1"
  | "F2"
  | "F3"
  | "F4"
  | "F5"
  | "F6"
  | "F7"
  | "F8"
  | "F9"
  | "F10"
  | "F11"
  /** spawn_session between T1 and T2: the child is created, the parent has recorded nothing more. */
  | "F12"
  /** A child session running its goal (after its first tool dispatch). */
  | "F13"
  /** The parent appended a child's report, before the child heard the acknowledgement. */
  | "F14"
  /** A turn closed (its `turnClose` committed), its trace not yet sent to the collector. */
  | "F15"
  /** A remote call's task recorded (`stateDelta.remoteTask`), nothing more (docs/design.md#remote-calls). */
  | "F16"
  /** A remote task's outcome learned (a poll or a notification), the call's response not yet committed. */
  | "F17"
  /** A channel's post of a report is stored in its outbox, not yet sent to the platform. */
  | "F18"
  /** A turn closed and its answer's report is stored in the session, not yet handed to the channel. */
  | "F19"
  /** An MCP OAuth callback exchanged its code for tokens, the grant not yet stored. */
  | "F20"
  /** An MCP OAuth refresh answered by the authorization server, the new tokens not yet stored. */
  | "F21";

export type FailpointEnv = { HW_FAILPOINT?: string; HW_FAILPOINT_URL?: string };

export function failpointArmed(env: FailpointEnv, id: FailpointId): boolean {
  return !!env.HW_FAILPOINT && env.HW_FAILPOINT.split(",").includes(id);
}

let halted = false;

/** True once a failpoint fired: from then on the object does nothing at all (no commit, no slice). */
export function haltedAtFailpoint(): boolean {
  return halted;
}

/** Never resolves: what the object does after a failpoint. */
export function hang(): Promise<never> {
  return new Promise<never>(() => {});
}

export async function failpoint(env: FailpointEnv, id: FailpointId): Promise<void> {
  if (!failpointArmed(env, id)) return;
  halted = true;
  if (env.HW_FAILPOINT_URL) {
    await fetch(env.HW_FAILPOINT_URL, { method: "POST", body: id }).catch(() => undefined);
  }
  // Hang until the harness kills the process: nothing after this boundary may run.
  await hang();
}
