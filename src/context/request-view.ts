import { createHash, type Hash } from "node:crypto";
import { canonical } from "../contract/canonical";
import type { Event } from "../contract/event";
import type { ContextReads } from "../log/model-view-reads";
import type { EventStore } from "../log/store";
import type { NeutralMessage, ToolSpec } from "../model/types";
import { headMessages, MessageFold, type OffloadMark } from "../projections/model-context";

/** What a view is built on: a different value of any of these starts a new view. */
export type ViewBase = {
  system: string;
  checkpoint: { id: string; throughSeq: number; summary: string } | null;
  placeholders: ReadonlyMap<string, OffloadMark>;
  /** A fork's prefix (docs/design.md#context): the parent's messages, after the system prompt until the first checkpoint. */
  prefix?: { messages: NeutralMessage[]; text: string };
};

/** One request as the view gives it: the messages, the digest of `{ messages, tools }` and its length. */
export type ViewedRequest = {
  messages: NeutralMessage[];
  /** The visible events and request markers after the checkpoint, through `throughSeq`. */
  events: Event[];
  requestDigest: string;
  /** Characters of the messages array as JSON (the budget estimate measures with it). */
  messagesChars: number;
};

const OPEN = '{"messages":[';

/**
 * The model view of the log as a structure (docs/design.md#context): the next request's
 * messages are the last request's messages plus the events committed since, until the next
 * checkpoint. It keeps the final messages, the SHA-256 state over their canonical bytes
 * (`{"messages":[` and each final message; the tail and the tools are hashed on a copy) and the
 * events read, so a step reads, folds and hashes only what is new. A cache: it holds nothing the
 * log does not, and is rebuilt from the latest checkpoint in one bounded read when it is lost.
 */
export class RequestView {
  readonly #fold: MessageFold;
  readonly #hash: Hash = createHash("sha256").update(OPEN);
  #finalChars = 0;
  #finalCount = 0;
  readonly events: Event[] = [];
  /** The log is folded through this seq. */
  throughSeq: number;
  /** Messages' characters of the requests made from this view, by `throughSeq` (the last few). */
  readonly #charsAt = new Map<number, number>();

  constructor(
    readonly base: ViewBase,
    readonly key: string,
  ) {
    this.throughSeq = base.checkpoint?.throughSeq ?? 0;
    const head = headMessages(base.system, base.checkpoint?.summary ?? null);
    const first = base.prefix && !base.checkpoint ? [head[0]!, ...base.prefix.messages, ...head.slice(1)] : head;
    this.#fold = new MessageFold(first, (m) => {
      const text = this.#finalCount === 0 ? canonical(m) : `,${canonical(m)}`;
      this.#hash.update(text);
      this.#finalChars += text.length;
      this.#finalCount++;
    });
  }

  /** Folds events read from the log (ascending, after `throughSeq`) and moves to `through`. */
  extend(events: Event[], through: number): void {
    for (const e of events) {
      this.#fold.push(e, this.base.placeholders);
      this.events.push(e);
    }
    this.throughSeq = through;
  }

  /** The request at `throughSeq` with these tools: only the tail and the tools are serialized. */
  request(tools: ToolSpec[]): ViewedRequest {
    const tail = this.#fold.tail();
    const h = this.#hash.copy();
    let chars = this.#finalChars;
    let count = this.#finalCount;
    for (const m of tail) {
      const text = count === 0 ? canonical(m) : `,${canonical(m)}`;
      h.update(text);
      chars += text.length;
      count++;
    }
    h.update(`],"tools":${canonical(sortedTools(tools))}}`);
    const messagesChars = chars + 2;
    this.#charsAt.set(this.throughSeq, messagesChars);
    if (this.#charsAt.size > 8) this.#charsAt.delete(this.#charsAt.keys().next().value!);
    return {
      messages: this.#fold.messages(),
      events: this.events.slice(),
      requestDigest: h.digest("hex"),
      messagesChars,
    };
  }

  /** The messages' characters of a request this view made at `throughSeq`, if it remembers it. */
  charsAt(throughSeq: number): number | undefined {
    return this.#charsAt.get(throughSeq);
  }
}

/** The tools sorted by name, as the request digest takes them (docs/design.md#context). */
export function sortedTools(tools: ToolSpec[]): ToolSpec[] {
  return [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function keyOf(base: ViewBase): string {
  const marks = [...base.placeholders.entries()].map(([id, m]) => `${id}:${m.sha256}`).join(",");
  return `${base.checkpoint?.id ?? "-"}\n${base.checkpoint?.throughSeq ?? 0}\n${marks}\n${base.prefix?.text ?? ""}\n${base.system}`;
}

/** One view per store (a store lives as long as its object's instance: an eviction drops both). */
const views = new WeakMap<EventStore, RequestView>();

/**
 * The view of the log through its head on `base`: the kept one extended by the events committed
 * since (one read of the new rows), or one rebuilt from the checkpoint when there is none, it was
 * made on another base, or the log is no longer ahead of it.
 */
export function currentView(store: EventStore, reads: ContextReads, base: ViewBase): RequestView {
  const head = store.head().highWater;
  const key = keyOf(base);
  let view = views.get(store);
  if (!view || view.key !== key || view.throughSeq > head) {
    view = new RequestView(base, key);
    views.set(store, view);
  }
  if (view.throughSeq < head) view.extend(reads.contextEventsAfter(view.throughSeq), head);
  return view;
}

/** A view through `through` only (a re-issued call's recorded prefix), built apart from the kept one. */
export function viewThrough(reads: ContextReads, base: ViewBase, through: number): RequestView {
  const view = new RequestView(base, keyOf(base));
  const events = reads.contextEventsAfter(view.throughSeq).filter((e) => e.seq <= through);
  view.extend(events, through);
  return view;
}

/** Drops the kept view of a store (tests use it to compare the kept view with a rebuilt one). */
export function forgetView(store: EventStore): void {
  views.delete(store);
}
