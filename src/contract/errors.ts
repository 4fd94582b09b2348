/**
 * The contract's error shape (docs/API.md §2): one table of codes and statuses, one error class,
 * and the one builder of `{ error: { code, message } }` that HTTP answers and socket frames
 * share. Pure: browsers, the Worker and the session object all import it.
 */

/** Error codes with their HTTP status, in the order requests are checked (docs/API.md §7.1). */
export const ERROR_STATUS = {
  not_configured: 503,
  unauthorized: 401,
  forbidden: 403,
  rate_limited: 429,
  payload_too_large: 413,
  not_found: 404,
  method_not_allowed: 405,
  bad_request: 400,
  conflict: 409,
  memory_full: 409,
  internal: 500,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

/** An expected failure a caller can act on; mapped to the error shape by `errorBody`. */
export class ApiError extends Error {
  /** Between the Worker and an object only, never on the wire (see `Result`). */
  readonly hint?: ErrorHint;
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown; hint?: ErrorHint },
  ) {
    super(message, options);
    this.name = "ApiError";
    if (options?.hint) this.hint = options.hint;
  }
  get status(): ErrorStatus {
    return ERROR_STATUS[this.code];
  }
}

export type ErrorBody = { error: { code: ErrorCode; message: string } };

/** The body of every error answer and of every socket `error` frame. */
export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { error: { code, message } };
}

/** Any thrown value as the error shape: an ApiError as itself, anything else as a 500 that says nothing secret. */
export function toErrorBody(err: unknown): { status: ErrorStatus; body: ErrorBody } {
  if (err instanceof ApiError) return { status: err.status, body: errorBody(err.code, err.message) };
  return { status: ERROR_STATUS.internal, body: errorBody("internal", "internal error") };
}

/** A socket `error` frame (docs/API.md §4), with the id of the frame it answers. */
export function errorFrame(code: ErrorCode, message: string, id?: string) {
  return { type: "error" as const, ...(id === undefined ? {} : { id }), ...errorBody(code, message) };
}

/** RPC results cross the object boundary as values, since thrown errors lose their fields. */
/**
 * `unowned`: a 404 from a session written before its owner was recorded in seq 1 (docs/API.md#upgrades);
 * the Worker may prove ownership from the caller's directory and ask again.
 */
export type ErrorHint = "unowned";

export type Result<T> =
  | { ok: true; value: T }
  | { ok: false; error: { code: ErrorCode; message: string; hint?: ErrorHint } };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

/** Runs `fn`, turning an ApiError into a failed Result; anything else is rethrown (a bug). */
export async function asResult<T>(fn: () => T | Promise<T>): Promise<Result<T>> {
  try {
    return ok(await fn());
  } catch (err) {
    if (err instanceof ApiError)
      return { ok: false, error: { code: err.code, message: err.message, ...(err.hint ? { hint: err.hint } : {}) } };
    throw err;
  }
}

/** The value of a Result, or its error thrown again as an ApiError (on the Worker's side of an RPC). */
export function unwrap<T>(r: Result<T>): T {
  if (!r.ok) throw new ApiError(r.error.code, r.error.message);
  return r.value;
}
