import { createHighwater } from "./index";

/** The repository's own deployment: highwater with the built-in tools only. */
const highwater = createHighwater();

export const { SessionObject, DirectoryObject, MemoryObject, SkillsObject, TokenObject, ChannelObject } = highwater;
export default highwater.default;
