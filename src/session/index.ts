export { type Caller, ownerHash } from "./admission";
export { DirectoryObject } from "./directory-object";
export { SessionObject } from "./session-object";
export { isCatchingUp, pumpSocket, REPLAY_PAGE, replaySocket, type SocketAttachment } from "./sockets";
export { TokenObject } from "./token-object";
export { tokenSourceOf, tokenStoreOf } from "./token-store";
