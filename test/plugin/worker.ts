import { createHighwater, FEATURES } from "../../src/index";
import { stamps } from "./fixture";

/** highwater with the built-in features and one more, mounted by the list alone. */
const highwater = createHighwater({ features: [...FEATURES, stamps] });

export const { SessionObject, DirectoryObject } = highwater;
export default highwater.default;
