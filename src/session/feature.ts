/**
 * The session object's plug (docs/design.md#plugs): a feature's named operations, called through
 * the object's one generic path (`SessionObject.call`: admitted like every call from the Worker,
 * answered as a `Result`). The object hands the runtime's part of the feature down to its runtime.
 */
import type { RuntimeFeature } from "../runtime/feature";
import type { Admitted } from "./admission";

/** One operation: what an admitted call works with, and the input the edge validated. */
// biome-ignore lint/suspicious/noExplicitAny: each operation declares its own input
export type Operation = (admitted: Admitted, input: any) => unknown;

export type ObjectFeature = RuntimeFeature & {
  /** Named operations, called as `call(caller, feature.name, name, input)`. */
  readonly operations?: Readonly<Record<string, Operation>>;
};

/** The operations of every feature by `feature/operation`; a name listed twice throws, naming it. */
export function operationsOf(features: readonly ObjectFeature[]): ReadonlyMap<string, Operation> {
  const out = new Map<string, Operation>();
  for (const f of features)
    for (const [name, op] of Object.entries(f.operations ?? {})) {
      const key = `${f.name}/${name}`;
      if (out.has(key)) throw new TypeError(`the operation "${key}" is defined twice`);
      out.set(key, op);
    }
  return out;
}
