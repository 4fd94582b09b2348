import { z } from "zod";
import { toolError, utf8ByteLength } from "../../tools/builtin/text";
import type { ToolDefinition } from "../../tools/types";
import { headSeq, readRecord, topicState } from "./cache";
import { decideEntry, decideRevision, MAX_RECORD_BYTES, MAX_REFS, TOPIC } from "./facts";

const topicArg = z
  .string()
  .regex(TOPIC, "a letter or digit, then up to 63 of A-Z a-z 0-9 . _ -")
  .describe("Record topic, e.g. 'findings' or 'plan.v2'.");
const textArg = (what: string) =>
  z
    .string()
    .max(MAX_RECORD_BYTES)
    .refine((s) => utf8ByteLength(s) <= MAX_RECORD_BYTES, { message: `at most ${MAX_RECORD_BYTES} UTF-8 bytes` })
    .describe(what);

const ReadRecordInput = z.strictObject({
  topic: topicArg,
  after: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("Read the uncovered entries after this entry id: the `next` of the previous read."),
});

export const readRecordTool: ToolDefinition<z.infer<typeof ReadRecordInput>> = {
  name: "read_record",
  description:
    "Read a work record: its latest summary (revision, content, coversEntry) and a page of the entries the summary does not cover yet; when there are more, `next` is the `after` for the next read. An unknown topic is revision 0 with empty content.",
  input: ReadRecordInput,
  effect: () => "read",
  async run(args, ctx) {
    return {
      status: "ok",
      response: readRecord(ctx.sql, args.topic, args.after !== undefined ? { after: args.after } : {}),
    };
  },
};

const WriteRecordInput = z.strictObject({
  topic: topicArg,
  content: textArg("The whole new summary of the topic."),
  expectedRevision: z
    .number()
    .int()
    .min(0)
    .describe("The revision this summary replaces (0 for a new topic); a stale one is refused."),
  coversEntry: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("The last entry this summary covers (0 = none; default: what the previous revision covered)."),
});

export const writeRecordTool: ToolDefinition<z.infer<typeof WriteRecordInput>> = {
  name: "write_record",
  description:
    "Write a new revision of a work record's summary. Pass the revision you read as expectedRevision; if someone wrote since, the write is refused (read again and merge).",
  input: WriteRecordInput,
  effect: () => "write",
  async run(args, ctx) {
    const d = decideRevision(args.topic, topicState(ctx.sql, args.topic), args);
    if (!d.ok) return toolError(d.code === "conflict" ? "stale_revision" : "bad_request", d.message);
    return {
      status: "ok",
      response: { topic: args.topic, revision: d.fact.revision },
      stateDelta: { recordRevision: d.fact },
    };
  },
};

const AppendEntryInput = z.strictObject({
  topic: topicArg,
  text: textArg("What was found or done."),
  refs: z
    .array(z.number().int().min(1))
    .max(MAX_REFS)
    .optional()
    .describe("Event seqs this entry comes from (each at most the log's head)."),
});

export const appendRecordEntryTool: ToolDefinition<z.infer<typeof AppendEntryInput>> = {
  name: "append_record_entry",
  description: "Append an entry to a work record, with the event seqs it came from as refs.",
  input: AppendEntryInput,
  effect: () => "write",
  async run(args, ctx) {
    const d = decideEntry(args.topic, topicState(ctx.sql, args.topic), headSeq(ctx.sql), args);
    if (!d.ok) return toolError("bad_request", d.message);
    return {
      status: "ok",
      response: { topic: args.topic, entry: d.fact.entry },
      stateDelta: { recordEntry: d.fact },
    };
  },
};
