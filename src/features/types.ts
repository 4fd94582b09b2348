/**
 * A feature: one object implementing the plugs it needs (docs/design.md#plugs): the runtime's
 * (`runtime/feature.ts`: tools, tables, alarm, summary slice, what the model is shown), the
 * object's (`session/feature.ts`) and the edge's (`http/types.ts`: routes).
 */
import type { EdgeFeature } from "../http/types";
import type { ObjectFeature } from "../session/feature";

export type Feature = ObjectFeature & EdgeFeature;
