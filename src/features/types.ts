/**
 * What a feature beyond a turn contributes to a session: the runtime's plug (its tools, tables,
 * alarm, summary slice and what the model is shown: `runtime/feature.ts`) and its routes.
 */
import type { EdgeApp } from "../http/types";
import type { RuntimeFeature } from "../runtime/feature";

export type Feature = RuntimeFeature & {
  /** Mounts the feature's routes (behind the session lookup, before the app's 404). */
  readonly routes?: (app: EdgeApp) => void;
};
