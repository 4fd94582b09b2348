/**
 * The alarm handler's body (docs/design.md#where-things-live): one slice of the loop when the
 * loop is due, or only a re-arm if a loop is alive; then the outbox. A slice that throws is a
 * failed slice: the next one comes after the backoff and decides. An alarm that fired for
 * another part (a trigger, the outbox) does not start a slice early, so a retry or a backoff
 * keeps its time.
 */

import type { AlarmDues } from "./alarm";
import type { AlarmOwner } from "./alarm-owner";
import type { RuntimeCtx } from "./deps";
import { haltedAtFailpoint, hang } from "./failpoints";
import { afterFailedSlice, runSlice } from "./loop";
import { deliverOutbox } from "./outbox";
import { pollRemote } from "./remote";

type Runtime = Parameters<typeof runSlice>[0] &
  Parameters<typeof afterFailedSlice>[0] &
  RuntimeCtx & { arm(): Promise<void>; dues(): AlarmDues };

export class SliceRunner {
  #loop: Promise<void> | null = null;

  get running(): boolean {
    return this.#loop !== null;
  }

  async alarm(rt: Runtime, owner: AlarmOwner, hooks: Parameters<typeof runSlice>[1]): Promise<void> {
    if (haltedAtFailpoint()) return hang();
    if (this.#loop) {
      // The platform never runs two alarm handlers at once, so this happens only when a test
      // drives the alarm by hand: re-arm, then wait for the live slice to end.
      await rt.arm();
      await this.#loop;
      return;
    }
    const due = rt.dues().loop ?? null;
    if (due !== null && due <= rt.now()) {
      owner.startSlice();
      this.#loop = runSlice(rt, hooks)
        .catch(async (err) => {
          if (haltedAtFailpoint()) return hang();
          console.error("highwater: slice failed", err);
          await afterFailedSlice(rt);
        })
        .finally(() => {
          this.#loop = null;
          owner.release();
        });
      await this.#loop;
    }
    await deliverOutbox(rt, owner);
    if (!haltedAtFailpoint()) await pollRemote(rt, owner);
    if (!haltedAtFailpoint()) await rt.arm();
    // The MCP connections go with the alarm's work (the next slice connects again): a stream a
    // server keeps open would hold the object in memory (docs/design.md#memory-an-object-holds).
    rt.deps.mcp?.release();
  }
}
