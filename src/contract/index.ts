/**
 * The contract shared by the Worker, the session object, the client and the console: error
 * codes and shape, socket frames and text limits, and how model options merge. Nothing here
 * needs a Worker-only module.
 */
export * from "./errors";
export * from "./frames";
export { mergeModel } from "./model-options";

/** CONTRACT §2: the largest request body, checked from Content-Length before reading, else while reading. */
export const MAX_BODY_BYTES = 1_048_576;

/** Approval request ids are minted by the runtime: `apr_` and 24 lowercase hex characters. */
export const REQUEST_ID = /^apr_[0-9a-f]{24}$/;
