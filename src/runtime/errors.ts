/** Re-export: the error table and ApiError live in the shared contract module (`src/contract`). */
export { ApiError, asResult, ERROR_STATUS, type ErrorCode, ok, type Result } from "../contract/errors";
