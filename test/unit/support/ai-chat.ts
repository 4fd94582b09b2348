/**
 * The AI SDK's own chat client (`AbstractChat`, what `useChat` wraps) over an in-memory state, so
 * tests see the messages a `useChat` page would hold after its sends and resumes.
 */
import { AbstractChat, type ChatState, type ChatTransport, type UIMessage } from "ai";

export class TestChat extends AbstractChat<UIMessage> {
  constructor(messages: UIMessage[], transport: ChatTransport<UIMessage>, id = "s1") {
    const state: ChatState<UIMessage> = {
      status: "ready",
      error: undefined,
      messages: [...messages],
      pushMessage(m) {
        this.messages = [...this.messages, m];
      },
      popMessage() {
        this.messages = this.messages.slice(0, -1);
      },
      replaceMessage(i, m) {
        this.messages = this.messages.map((x, j) => (j === i ? m : x));
      },
      snapshot: (x) => structuredClone(x),
    };
    super({ id, transport, state });
  }

  /** A plain copy of the messages the chat holds now. */
  get all(): UIMessage[] {
    return JSON.parse(JSON.stringify(this.state.messages)) as UIMessage[];
  }
}
