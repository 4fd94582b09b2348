export { DirectoryObject } from "./directory-object";
export { type Caller, ownerHash, RateWindow } from "./ownership";
export { SessionObject } from "./session-object";
export { pumpSocket, type SocketAttachment } from "./sockets";
