/** Error codes of the contract's error shape (CONTRACT §2), with their HTTP status. */
export const ERROR_STATUS = {
  not_configured: 503,
  unauthorized: 401,
  forbidden: 403,
  payload_too_large: 413,
  not_found: 404,
  method_not_allowed: 405,
  bad_request: 400,
  conflict: 409,
  rate_limited: 429,
  internal: 500,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

/** An expected failure a caller can act on; mapped to `{ error: { code, message } }` in one place. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** RPC results cross the object boundary as values, since thrown errors lose their fields. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: { code: ErrorCode; message: string } };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

/** Runs `fn`, turning an ApiError into a failed Result; anything else is rethrown (a bug). */
export async function asResult<T>(fn: () => T | Promise<T>): Promise<Result<T>> {
  try {
    return ok(await fn());
  } catch (err) {
    if (err instanceof ApiError) return { ok: false, error: { code: err.code, message: err.message } };
    throw err;
  }
}
