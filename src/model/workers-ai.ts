import { createWorkersAI } from "workers-ai-provider";
import { streamWithAiSdk } from "./convert";
import { type ModelPart, type ModelProvider, type ModelRequest, ProviderError } from "./types";

/** The slice of the `AI` binding the adapter uses: `run(model, inputs, options)`. */
export type WorkersAiBinding = {
  run(model: string, inputs: Record<string, unknown>, options?: Record<string, unknown>): Promise<unknown>;
};

const DONE_LINE = /^data:\s*\[DONE\]\s*$/;

/**
 * Workers AI over the `AI` binding (docs/API.md §1), through `workers-ai-provider` and the same
 * AI SDK bridge as the other adapters. The binding streams server-sent events (`data: {…}`
 * lines ending with `data: [DONE]`); docs/API.md §7.9 makes `[DONE]` the only finish, but the
 * package also reports a finish for a stream that stopped after a `finish_reason` chunk, so
 * the adapter watches the bytes itself and turns a finish without `[DONE]` into `stream_cut`.
 */
export function createWorkersAiProvider(binding: WorkersAiBinding | undefined): ModelProvider {
  return {
    name: "workers-ai",
    stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelPart> {
      if (!binding) return failWith(new ProviderError("workers-ai: the AI binding is not bound here", null, false));
      return streamWorkersAi(binding, request, signal);
    },
  };
}

async function* streamWorkersAi(
  binding: WorkersAiBinding,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncGenerator<ModelPart> {
  const seen: StreamSeen = { streamed: false, done: false };
  const watched: WorkersAiBinding = {
    async run(model, inputs, options) {
      const out = await binding.run(model, inputs, options);
      return out instanceof ReadableStream ? out.pipeThrough(watchForDone(seen)) : out;
    },
  };
  const model = createWorkersAI({ binding: watched as unknown as Ai }).chat(request.model.name);
  for await (const part of streamWithAiSdk({ model, request, dialect: "openai", signal })) {
    // A whole JSON answer (some models ignore `stream: true`) is complete by construction.
    if (part.type === "finish" && seen.streamed && !seen.done)
      throw new ProviderError("the Workers AI stream ended without data: [DONE]", null, true, undefined, {
        attemptCode: "stream_cut",
      });
    yield part;
  }
}

type StreamSeen = { streamed: boolean; done: boolean };

/** Passes the SSE bytes through and records whether a `data: [DONE]` line arrived. */
function watchForDone(seen: StreamSeen): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let line = "";
  seen.streamed = true;
  const scan = (text: string) => {
    line += text;
    let nl = line.indexOf("\n");
    while (nl >= 0) {
      if (DONE_LINE.test(line.slice(0, nl).replace(/\r$/, ""))) seen.done = true;
      line = line.slice(nl + 1);
      nl = line.indexOf("\n");
    }
  };
  return new TransformStream({
    transform(chunk, controller) {
      scan(decoder.decode(chunk, { stream: true }));
      controller.enqueue(chunk);
    },
    flush() {
      scan(`${decoder.decode()}\n`);
    },
  });
}

async function* failWith(error: ProviderError): AsyncGenerator<ModelPart> {
  yield* [];
  throw error;
}
