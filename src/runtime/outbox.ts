/**
 * After a slice: the outbox of a session with children (docs/API.md#tools), tried until every
 * report and stop is acknowledged, with the alarm owner's backoff between failed tries.
 */

import { hasChildrenWork } from "../projections";
import type { AlarmOwner } from "./alarm-owner";
import { deliverChildrenWork } from "./child-calls";
import type { RuntimeCtx } from "./deps";
import { haltedAtFailpoint } from "./failpoints";

export async function deliverOutbox(rt: RuntimeCtx & { arm(): Promise<void> }, alarm: AlarmOwner): Promise<void> {
  if (!hasChildrenWork(rt.summary?.children) || haltedAtFailpoint()) return;
  // Armed for the retry before anything is sent, so a kill mid-delivery comes back.
  alarm.outboxAttempt();
  await rt.arm();
  alarm.outboxDone(await deliverChildrenWork(rt));
}
