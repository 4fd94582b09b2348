import { ApiError, toErrorBody } from "../contract/errors";
import { drainBody } from "./body";
import type { EdgeContext } from "./types";

/**
 * The one place an error becomes an answer (hono's `onError` and `notFound`): the body from
 * the contract's builder, the status from its table. A body the request still carries is
 * drained first (docs/API.md §7.2), so the client's connection stays usable.
 */
export async function answerError(err: unknown, c: EdgeContext): Promise<Response> {
  await drainBody(c.req.raw);
  if (!(err instanceof ApiError)) console.error("highwater: internal error", err);
  const { status, body } = toErrorBody(err);
  return c.json(body, status);
}

export function answerNotFound(c: EdgeContext): Promise<Response> {
  return answerError(new ApiError("not_found", "unknown route"), c);
}
