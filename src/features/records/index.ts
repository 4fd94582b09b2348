/** Work records: topics of revisions and entries, with their routes and tools. */
import type { Feature } from "../types";
import { applyRecordEvents } from "./cache";
import { recordFactOf } from "./facts";
import { recordRoutes } from "./routes";
import { appendRecordEntryTool, readRecordTool, writeRecordTool } from "./tool";

export const records: Feature = {
  name: "records",
  routes: recordRoutes,
  tools: [readRecordTool, writeRecordTool, appendRecordEntryTool],
  apply: applyRecordEvents,
  touches: (events) => events.some((e) => recordFactOf(e) !== null),
};
