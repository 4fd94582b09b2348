export { createApp } from "./app";
export { principalOf } from "./auth";
export { DRAIN_BYTES, drainBody } from "./body";
