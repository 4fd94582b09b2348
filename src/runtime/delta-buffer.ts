/**
 * The text streamed so far in the current model attempt, by kind (docs/API.md#live-updates-over-a-websocket):
 * memory only, lost on eviction, and what a socket that catches up mid-call is sent first.
 */
import type { DeltaFrame } from "./deps";

export class DeltaBuffer {
  #streamed: DeltaFrame[] = [];

  /** Adds a streamed piece: appended to its kind's text of the same attempt, else starting it afresh. */
  add(frame: DeltaFrame): void {
    const held = this.#streamed.find((f) => f.kind === frame.kind);
    if (held && held.invocationId === frame.invocationId && held.attempt === frame.attempt) held.text += frame.text;
    else {
      this.#streamed = this.#streamed.filter(
        (f) => f.kind !== frame.kind && f.invocationId === frame.invocationId && f.attempt === frame.attempt,
      );
      this.#streamed.push({ ...frame });
    }
  }

  /** The attempt ended (recorded or failed): nothing is in flight. */
  clear(): void {
    this.#streamed = [];
  }

  /** One frame per kind with the text so far of the current attempt, thinking before text. */
  replay(): (DeltaFrame & { replace: true })[] {
    return ["thinking", "text"].flatMap((kind) =>
      this.#streamed.filter((f) => f.kind === kind).map((f) => ({ ...f, replace: true as const })),
    );
  }
}
