/** Work records: topics of revisions and entries, with their routes and tools. */
import type { Feature } from "../types";
import { applyRecordEvents } from "./cache";
import { appendRecordEntry, getRecord, getRecords, putRecord } from "./commands";
import { recordFactOf } from "./facts";
import { recordRoutes } from "./routes";
import { appendRecordEntryTool, readRecordTool, writeRecordTool } from "./tool";

export const records: Feature = {
  name: "records",
  routes: recordRoutes,
  tools: [readRecordTool, writeRecordTool, appendRecordEntryTool],
  apply: applyRecordEvents,
  touches: (events) => events.some((e) => recordFactOf(e) !== null),
  // The object's operations, called by the routes through SessionObject.call (validated there).
  operations: {
    list: ({ runtime }) => getRecords(runtime),
    read: ({ runtime }, i: { topic: string; page: { after?: number; limit?: number } }) =>
      getRecord(runtime, i.topic, i.page),
    put: ({ runtime }, i: { topic: string; content: string; expectedRevision: number; coversEntry?: number }) =>
      putRecord(runtime, i.topic, i),
    append: ({ runtime }, i: { topic: string; text: string; refs?: number[] }) =>
      appendRecordEntry(runtime, i.topic, i),
  },
};
