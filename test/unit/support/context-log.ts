import type { Event } from "../../../src/log";

/** A hand-written log for context tests: each helper appends one event with the next seq. */
export class LogBuilder {
  readonly events: Event[] = [];
  #seq = 0;
  #inv = 0;
  #call = 0;

  #push(e: Omit<Event, "seq" | "sessionId" | "at" | "digest">): Event {
    const seq = ++this.#seq;
    const event = { ...e, seq, sessionId: "s", at: `t${seq}`, digest: seq.toString(16).padStart(64, "0") } as Event;
    this.events.push(event);
    return event;
  }

  user(text: string): Event {
    return this.#push({ author: "user", modelVisibility: "visible", turnId: "t", content: { type: "text", text } });
  }

  hidden(actions: Event["actions"] = { stateDelta: { note: 1 } }): Event {
    return this.#push({ author: "runtime", modelVisibility: "hidden", actions });
  }

  /** One model answer: optional text, then calls; returns the call ids. */
  answer(text: string | null, calls: { name: string; args?: unknown }[] = []): string[] {
    const invocationId = `inv${++this.#inv}`;
    if (text !== null)
      this.#push({ author: "model", modelVisibility: "visible", invocationId, content: { type: "text", text } });
    return calls.map((c) => {
      const callId = `call${++this.#call}`;
      this.#push({
        author: "model",
        modelVisibility: "visible",
        invocationId,
        content: { type: "functionCall", callId, name: c.name, args: c.args ?? {} },
      });
      return callId;
    });
  }

  result(
    callId: string,
    name: string,
    response: unknown,
    status: "ok" | "error" = "ok",
    actions?: Event["actions"],
  ): Event {
    this.hidden({ toolDispatch: { callId, tool: name, effect: "read", idempotencyKey: callId } });
    return this.#push({
      author: "tool",
      modelVisibility: "visible",
      content: { type: "functionResponse", callId, name, status, response },
      ...(actions ? { actions } : {}),
    });
  }

  /** A full step: an answer with one call and its result. */
  step(name: string, args: unknown, response: unknown): string {
    const [id] = this.answer(null, [{ name, args }]);
    this.result(id!, name, response);
    return id!;
  }

  get visible(): Event[] {
    return this.events.filter((e) => e.modelVisibility === "visible");
  }
}

/** A deterministic PRNG (mulberry32) for generated logs. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const VALID_SUMMARY = [
  "Summary of the session so far.",
  "",
  "## Goal and deliverable",
  "Write a report in report.md.",
  "",
  "## Progress and next steps",
  "Drafted sections 1-3 (seq 12-40). Next: section 4.",
  "",
  "## Constraints, decisions and facts",
  "Use British spelling.",
  "",
  "## Open items",
  "None.",
  "",
  "## Key files and event references",
  "report.md (write_file at seq 40).",
].join("\n");
