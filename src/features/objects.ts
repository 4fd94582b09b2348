/**
 * The Durable Object classes that features bring, for the composition root to export (Worker-only:
 * they import `cloudflare:workers`, so the feature list in ./index.ts stays importable in Node).
 */

export { ChannelObject } from "./channels/object";
export { MemoryObject } from "./memory/object";
export { SkillsObject } from "./skills/object";
