/** The AI SDK's chat protocol on the edge (docs/API.md#chat-ai-sdk-ui-message-stream). */
export { assistantMessageId, type UIMessage, UIMessagesFold, userMessageId } from "./messages";
export { ChatParts, type UIChunk } from "./parts";
export { CHAT_BODY_LIMIT, type ChatAction, MAX_CHAT_BODY_BYTES, parseChatRequest } from "./request";
export { chatRoutes } from "./routes";
