export { DirectoryObject } from "./directory-object";
export { type Caller, ownerHash } from "./ownership";
export { SessionObject } from "./session-object";
export { isCatchingUp, pumpSocket, REPLAY_PAGE, replaySocket, type SocketAttachment } from "./sockets";
export { TokenObject } from "./token-object";
export { tokenSourceOf, tokenStoreOf } from "./token-store";
