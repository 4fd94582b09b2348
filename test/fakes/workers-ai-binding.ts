/**
 * A fake `AI` binding that answers `run(model, { stream: true, … })` the way Workers AI does:
 * a `ReadableStream` of server-sent events, one `data: {json}` line per chunk, ending with
 * `data: [DONE]`. Text arrives in the native shape (`{ response }`), tool calls in the
 * OpenAI-compatible shape (`choices[0].delta.tool_calls`, arguments in pieces), usage in the
 * last chunk (`usage.prompt_tokens` …): the shapes `workers-ai-provider` reads.
 * Runs in Node and in workerd alike (Web streams only).
 */

export type FakeAnswer =
  | { kind: "text"; pieces: string[]; done?: boolean }
  | { kind: "tool"; id: string; name: string; argPieces: string[]; done?: boolean }
  | { kind: "whole"; response: string }
  | { kind: "throw"; error: Error };

export type FakeCall = { model: string; inputs: Record<string, unknown>; options?: Record<string, unknown> };

const USAGE = {
  prompt_tokens: 120,
  completion_tokens: 7,
  total_tokens: 127,
  prompt_tokens_details: { cached_tokens: 100 },
};

/** The SSE bytes for one answer; `done: false` leaves out the final `data: [DONE]`. */
export function sseFor(answer: Exclude<FakeAnswer, { kind: "whole" } | { kind: "throw" }>): string {
  const lines: unknown[] = [];
  if (answer.kind === "text") {
    for (const p of answer.pieces) lines.push({ response: p, p: "abc" });
    lines.push({ response: "", finish_reason: "stop", usage: USAGE });
  } else {
    answer.argPieces.forEach((args, i) => {
      const call =
        i === 0
          ? { index: 0, id: answer.id, type: "function", function: { name: answer.name, arguments: args } }
          : { index: 0, function: { arguments: args } };
      lines.push({ choices: [{ index: 0, delta: { role: "assistant", tool_calls: [call] } }] });
    });
    lines.push({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }], usage: USAGE });
  }
  const body = lines.map((l) => `data: ${JSON.stringify(l)}\n\n`).join("");
  return answer.done === false ? body : `${body}data: [DONE]\n\n`;
}

/** Splits text into byte chunks at awkward places (inside lines), as a network would. */
function chunked(text: string, size = 17): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

/** A binding that answers call n with `answers[n]` and records every call. */
export function fakeAiBinding(answers: FakeAnswer[]) {
  const calls: FakeCall[] = [];
  return {
    calls,
    async run(model: string, inputs: Record<string, unknown>, options?: Record<string, unknown>): Promise<unknown> {
      calls.push({
        model,
        inputs: structuredClone(inputs),
        ...(options ? { options: { ...options, signal: undefined } } : {}),
      });
      const answer = answers[calls.length - 1];
      if (!answer) throw new Error(`fake AI binding: no answer scripted for call ${calls.length}`);
      if (answer.kind === "throw") throw answer.error;
      if (answer.kind === "whole") return { response: answer.response, usage: USAGE };
      if (inputs.stream !== true) throw new Error("fake AI binding: expected stream: true");
      return chunked(sseFor(answer));
    },
  };
}
