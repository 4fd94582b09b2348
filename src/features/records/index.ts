/** Work records: topics of revisions and entries, with their routes and tools. */
import type { Feature } from "../types";
import { applyRecordEvents } from "./cache";
import { recordRoutes } from "./routes";
import { appendRecordEntryTool, readRecordTool, writeRecordTool } from "./tool";

export const records: Feature = {
  name: "records",
  routes: recordRoutes,
  tools: [readRecordTool, writeRecordTool, appendRecordEntryTool],
  apply: applyRecordEvents,
};
