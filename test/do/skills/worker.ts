/**
 * The `do-skills` test project's deployment (vitest.config.ts): the repository's own, with one
 * deployment skill bundled, as `createHighwater({ skills })` takes it.
 */
import { createHighwater } from "../../../src/index";

export const HOUSE_STYLE = `---
name: house-style
description: Our style.
---
Write short sentences.
`;

const highwater = createHighwater({ skills: [{ name: "house-style", skill: HOUSE_STYLE }] });

export const { SessionObject, DirectoryObject, MemoryObject, SkillsObject, TokenObject, ChannelObject } = highwater;
export default highwater.default;
