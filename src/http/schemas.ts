import { z } from "zod";
import { ApiError } from "../contract/errors";
import { describeIssues, IdempotencyKey, MessageText } from "../contract/frames";

export const PostMessage = z.strictObject({ text: MessageText, idempotencyKey: IdempotencyKey.optional() });

/** docs/API.md §6: the resume text is optional and follows the message limits (§7.33). */
export const ResumeRun = z.strictObject({
  waitId: z.string().min(1).max(300),
  text: MessageText.or(z.literal("")).optional(),
});

export const Decision = z.strictObject({
  decision: z.enum(["approve", "reject"]),
  reason: z.string().max(4096).optional(),
  argsDigest: z
    .string()
    .regex(/^[0-9a-f]{64}$/, "expected a sha256 hex digest")
    .optional(),
});

/** `POST /v1/sessions/:id/inputs/:requestId` (docs/API.md#questions-from-mcp-servers). */
export const InputAnswerBody = z.strictObject({
  action: z.enum(["accept", "decline", "cancel"]),
  content: z.record(z.string(), z.unknown()).optional(),
});

export const DismissNotice = z.strictObject({ atSeq: z.number().int().min(1) });

/** A query integer: digits only, within bounds (`?after=1e3` or `?limit=-1` are 400). */
export const queryInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,16}$/, "expected a non-negative integer")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

export const EventsQuery = z.strictObject({
  after: queryInt(0, Number.MAX_SAFE_INTEGER).optional(),
  limit: queryInt(1, 1000).optional(),
});

export const ListQuery = z.strictObject({
  limit: queryInt(1, 100).optional(),
  before: z.string().max(300).optional(),
});

export const ArchiveQuery = z.strictObject({
  offset: queryInt(0, Number.MAX_SAFE_INTEGER).optional(),
  limit: queryInt(1, 16 * 1024 * 1024).optional(),
});

export const TranscriptQuery = z.strictObject({
  after: queryInt(0, Number.MAX_SAFE_INTEGER).optional(),
  limit: queryInt(1, 500).optional(),
});

export const FilesQuery = z.strictObject({
  after: z.string().min(1).max(4096).optional(),
  limit: queryInt(1, 1000).optional(),
});

/** `GET /trace?turnId=`: a turn id as the runtime mints them (a UUID; ids of other shapes are kept to a safe alphabet). */
export const TraceQuery = z.strictObject({
  turnId: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,200}$/, "expected a turn id")
    .optional(),
});

export const WsQuery = z.strictObject({
  after: queryInt(0, Number.MAX_SAFE_INTEGER).optional(),
  ticket: z.string().min(1).max(300).optional(),
});

/** Session ids are minted by `newUniqueId()`: 64 lowercase hex characters. */
export const SESSION_ID = /^[0-9a-f]{64}$/;
export const SHA256 = /^[0-9a-f]{64}$/;

/** `schema` applied to a body or query, or 400 with a short reason (`query: limit: …`). */
export function parseInput<T extends z.ZodType>(
  schema: T,
  value: unknown,
  what: "body" | "query" = "body",
): z.infer<T> {
  const r = schema.safeParse(value);
  if (!r.success) throw new ApiError("bad_request", `${what === "body" ? "" : `${what}: `}${describeIssues(r.error)}`);
  return r.data;
}
