export { DirectoryObject } from "./directory-object";
export { SessionObject } from "./session-object";
export { pumpSocket, type SocketAttachment } from "./sockets";
