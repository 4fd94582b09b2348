/**
 * A tool outcome as the chat shows it (docs/API.md#chat-ai-sdk-ui-message-stream), the same in
 * the stream and in `GET /messages`: what the model saw, so an offloaded result is its
 * placeholder with `href`, the archive's HTTP path, never the archived bytes. Pure.
 */
import { type Event, offloadOf, placeholderFor } from "../../log";

export type ToolOutcome =
  | { state: "output-available"; output: unknown }
  | { state: "output-denied" }
  | { state: "output-error"; errorText: string };

type Response = { callId: string; name: string; status: string; response: unknown };

export function toolOutcome(e: Pick<Event, "sessionId" | "actions">, c: Response): ToolOutcome {
  const mark = offloadOf(e);
  const response = mark
    ? {
        ...placeholderFor(c.name, mark),
        href: `/v1/sessions/${encodeURIComponent(e.sessionId)}/archive/${mark.sha256}`,
      }
    : c.response;
  if (c.status === "ok") return { state: "output-available", output: response };
  if (c.status === "rejected") return { state: "output-denied" };
  const r = response as { code?: unknown; message?: unknown } | null;
  const message = typeof r?.message === "string" ? r.message : JSON.stringify(response);
  const code = c.status === "interrupted" ? "interrupted" : typeof r?.code === "string" ? r.code : "error";
  return { state: "output-error", errorText: `${code}: ${message}` };
}
