/**
 * The session object's plug (docs/design.md#plugs): a feature's named operations, called through
 * the object's one generic path (`SessionObject.call`: admitted like every call from the Worker,
 * answered as a `Result`). The object hands the runtime's part of the feature down to its runtime.
 */
import type { Session } from "../projections";
import type { RuntimeFeature } from "../runtime/feature";
import type { SessionRuntime } from "../runtime/session-runtime";
import type { Admitted, Caller } from "./admission";

/** One operation: what an admitted call works with, and the input the edge validated. */
// biome-ignore lint/suspicious/noExplicitAny: each operation declares its own input
export type Operation = (admitted: Admitted, input: any) => unknown;

/**
 * A first write made from elsewhere (a fork, from its parent), called as
 * `createBy(caller, feature.name, name, input)`: not admitted, since nothing exists yet. `prepare`
 * runs first, outside any block (it may call other objects); `write` then writes seq 1 on in the
 * block that creates the object's tables, with the caller as owner (`owner`, the hash the object
 * computed), and the object keeps the caller's principal beside its log, as for any session.
 */
export type Creation = {
  // biome-ignore lint/suspicious/noExplicitAny: each creation declares its own input
  readonly prepare?: (from: { env: Env; caller: Caller }, input: any) => unknown;
  // biome-ignore lint/suspicious/noExplicitAny: what `prepare` answered (else the input)
  readonly write: (to: { runtime: SessionRuntime; id: string; owner: string }, prepared: any) => Session;
};

export type ObjectFeature = RuntimeFeature & {
  /** Named operations, called as `call(caller, feature.name, name, input)`. */
  readonly operations?: Readonly<Record<string, Operation>>;
  /** Named first writes, called as `createBy(caller, feature.name, name, input)`. */
  readonly creations?: Readonly<Record<string, Creation>>;
};

/** The operations of every feature by `feature/operation`; a name listed twice throws, naming it. */
export function operationsOf(features: readonly ObjectFeature[]): ReadonlyMap<string, Operation> {
  return byName(features, (f) => f.operations, "operation");
}

/** The creations of every feature by `feature/creation`; a name listed twice throws, naming it. */
export function creationsOf(features: readonly ObjectFeature[]): ReadonlyMap<string, Creation> {
  return byName(features, (f) => f.creations, "creation");
}

function byName<T>(
  features: readonly ObjectFeature[],
  of: (f: ObjectFeature) => Readonly<Record<string, T>> | undefined,
  kind: string,
): ReadonlyMap<string, T> {
  const out = new Map<string, T>();
  for (const f of features)
    for (const [name, value] of Object.entries(of(f) ?? {})) {
      const key = `${f.name}/${name}`;
      if (out.has(key)) throw new TypeError(`the ${kind} "${key}" is defined twice`);
      out.set(key, value);
    }
  return out;
}
