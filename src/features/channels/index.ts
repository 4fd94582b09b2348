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
  nextDue: (sql) => relayDue(sql),
  deliver: deliverRelay,
  fold: foldRelay,
  operations: { bind: bindThread },
};
