/**
 * A minimal chat page on the AI SDK's `useChat`, unmodified, against a highwater Worker
 * (docs/API.md#chat-ai-sdk-ui-message-stream). Open it as
 * `index.html?api=http://localhost:8787#token=<a token from API_TOKENS>` from an origin listed in
 * `ALLOWED_ORIGINS`; it creates a session whose `write_file` calls wait for approval, keeps its id
 * in the URL, and after a reload continues an answer in progress (`resume: true`).
 */
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from "ai";
import { type FormEvent, useMemo, useState } from "react";
import { createRoot } from "react-dom/client";

const params = new URLSearchParams(location.search);
const API = params.get("api") ?? location.origin;
const TOKEN = new URLSearchParams(location.hash.slice(1)).get("token") ?? "";
const headers = { authorization: `Bearer ${TOKEN}` };

/** The chat's session (created once, then kept in the URL) and its history. */
async function openChat(): Promise<{ id: string; messages: UIMessage[] }> {
  let id = params.get("session");
  if (!id) {
    const res = await fetch(`${API}/v1/sessions`, {
      method: "POST",
      headers,
      body: JSON.stringify({ title: "useChat example", approvals: [{ tool: "write_file" }] }),
    });
    id = ((await res.json()) as { id: string }).id;
    params.set("session", id);
    history.replaceState(null, "", `?${params}${location.hash}`);
  }
  const messages = (await (await fetch(`${API}/v1/chat/${id}/messages`, { headers })).json()) as UIMessage[];
  return { id, messages };
}

type Chat = ReturnType<typeof useChat>;
type AnyPart = UIMessage["parts"][number];

function Part({ part, chat }: { part: AnyPart; chat: Chat }) {
  if (part.type === "text") return <p className="text">{part.text}</p>;
  if (part.type === "reasoning") return <p className="reasoning">{part.text}</p>;
  if (part.type !== "dynamic-tool") return null;
  return (
    <div className="tool" data-state={part.state}>
      <code>
        {part.toolName} {JSON.stringify(part.input)}
      </code>{" "}
      <span>{part.state}</span>
      {part.state === "approval-requested" && (
        <>
          <button
            type="button"
            className="approve"
            onClick={() => chat.addToolApprovalResponse({ id: part.approval.id, approved: true })}
          >
            Approve
          </button>
          <button
            type="button"
            className="reject"
            onClick={() => chat.addToolApprovalResponse({ id: part.approval.id, approved: false })}
          >
            Reject
          </button>
        </>
      )}
    </div>
  );
}

function ChatPage({ id, messages }: { id: string; messages: UIMessage[] }) {
  const transport = useMemo(() => new DefaultChatTransport({ api: `${API}/v1/chat`, headers }), []);
  const chat = useChat({
    id,
    messages,
    resume: true,
    transport,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [text, setText] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim()) return;
    void chat.sendMessage({ text });
    setText("");
  };
  return (
    <main>
      <p id="status">{chat.status}</p>
      <ol id="messages">
        {chat.messages.map((m) => (
          <li key={m.id} data-role={m.role} data-id={m.id}>
            {m.parts.map((p, i) => (
              // A message's parts never reorder: their position is their identity.
              // biome-ignore lint/suspicious/noArrayIndexKey: parts have no id of their own
              <Part key={`${m.id}-${i}`} part={p} chat={chat} />
            ))}
          </li>
        ))}
      </ol>
      {chat.error && <p id="error">{chat.error.message}</p>}
      <form onSubmit={submit}>
        <input id="input" value={text} onChange={(e) => setText(e.target.value)} placeholder="Say something" />
        <button id="send" type="submit">
          Send
        </button>
        <button
          id="stop"
          type="button"
          onClick={() => void fetch(`${API}/v1/sessions/${id}/stop`, { method: "POST", headers })}
        >
          Stop
        </button>
      </form>
    </main>
  );
}

const root = createRoot(document.getElementById("root")!);
openChat().then(
  (chat) => root.render(<ChatPage id={chat.id} messages={chat.messages} />),
  (err) => root.render(<p id="error">{String(err)}</p>),
);
