/**
 * The contract shared by the Worker, the session object, the client and the console: every
 * type that crosses the wire, the error shape, socket frames, text limits, canonical JSON and
 * the args digest. It imports nothing outside this folder and needs no Worker-only module.
 */
export * from "./canonical";
export * from "./deadline";
export * from "./digest";
export * from "./errors";
export * from "./event";
export * from "./frames";
export * from "./memory";
export * from "./model";
export * from "./reads";
export * from "./records";
export * from "./session";
export * from "./sha256";
export * from "./skills";
export * from "./tools";
export * from "./trace";
export * from "./transcript";
export * from "./work";
