export { createApp, MAX_BODY_BYTES, principalOf, resolveModel } from "./app";
export { ClientFrame, describeIssues, MAX_TEXT_BYTES, utf8Bytes } from "./frames";
