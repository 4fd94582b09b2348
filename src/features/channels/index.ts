/**
 * Channels (docs/API.md#channels): Slack and Telegram threads as sessions. The webhook route,
 * the session's side (its thread binding, the reports its events make and their hand-over to
 * the channel's object) and the `bind` operation; the `ChannelObject` class is exported through
 * `features/objects.ts`.
 */
import type { Feature } from "../types";
import { applyRelay, catchUpRelay, deliverRelay, foldRelay, relayDue, touchesRelay } from "./relay";
import { bindThread, channelRoutes } from "./routes";
import { FEATURE } from "./sessions";

export const channels: Feature = {
  name: FEATURE,
  publicRoutes: channelRoutes,
  apply: applyRelay,
  touches: touchesRelay,
  catchUp: catchUpRelay,
  // Reports are owed only by a bound session (its slice is there).
  nextDue: (sql, summary) => (summary?.features?.[FEATURE] === undefined ? null : relayDue(sql)),
  deliver: deliverRelay,
  fold: foldRelay,
  operations: { bind: bindThread },
};
