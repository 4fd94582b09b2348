import { z } from "zod";
import type { Event } from "./event";
import type { Session } from "./session";

/** Max UTF-8 bytes of a message text (docs/API.md §2). */
export const MAX_TEXT_BYTES = 262_144;

/** docs/API.md §2: the largest request body, checked from Content-Length before reading, else while reading. */
export const MAX_BODY_BYTES = 1_048_576;

export const hasLoneSurrogate = (s: string) =>
  /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

/** Message text: non-empty, well-formed UTF-16, within the byte limit (413 is decided before this). */
export const MessageText = z
  .string()
  .min(1)
  .refine((s) => !hasLoneSurrogate(s), "text contains a lone UTF-16 surrogate");

export const IdempotencyKey = z.string().min(1).max(200);

/**
 * UTF-8 length of a string in bytes, as `TextEncoder` would encode it (a lone surrogate
 * becomes U+FFFD, 3 bytes), without allocating the encoding: a 10 MiB tool result is
 * measured, not copied.
 */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Client → server WebSocket frames (docs/API.md §4). */
export const ClientFrame = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("message"),
    id: z.string().max(200).optional(),
    text: MessageText,
    idempotencyKey: IdempotencyKey.optional(),
  }),
  z.strictObject({
    type: z.literal("approval"),
    id: z.string().max(200).optional(),
    requestId: z.string().min(1).max(200),
    decision: z.enum(["approve", "reject"]),
    reason: z.string().max(4096).optional(),
    argsDigest: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional(),
  }),
  z.strictObject({ type: z.literal("stop"), id: z.string().max(200).optional() }),
]);
export type ClientFrame = z.infer<typeof ClientFrame>;

/** A short, readable message from zod issues: `text: expected string`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? i.path.join(".") : "body"}: ${i.message}`)
    .join("; ");
}

type WithoutId<T> = T extends unknown ? Omit<T, "id"> : never;
/** A client frame as a caller writes it: the connection adds the `id`. */
export type ClientFrameBody = WithoutId<ClientFrame>;

/** Server → client WebSocket frames. */
export type ServerFrame =
  | { type: "ready"; session: Session }
  | { type: "event"; event: Event }
  | {
      type: "delta";
      invocationId: string;
      /** From 1; a later attempt's text replaces the failed one's. */
      attempt: number;
      kind: "text" | "thinking";
      text: string;
      /** The in-flight replay on connect: replace the buffer for `(invocationId, kind)`. */
      replace?: true;
    }
  | { type: "session"; session: Session }
  | { type: "ack"; id: string; result: unknown }
  | { type: "error"; id?: string; error: { code: string; message: string } };
