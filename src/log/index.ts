export { canonical, canonicalOnce } from "../contract/canonical";
export * from "../contract/event";
export { BLOB_CHUNK_BYTES, type BlobMeta, BlobStore } from "./blobs";
export { readBoundedAfter } from "./bounded-read";
export { modelViewOf, type OffloadMark, offloadOf, placeholderFor } from "./event-rows";
export { chainDigest, GENESIS_DIGEST, sha256Hex } from "./hash";
export { type ContextReads, ModelViewReads, type ViewPage } from "./model-view-reads";
export { EventStore, type Head, INLINE_EVENT_LIMIT, serializeRow, type Writes } from "./store";
export { ChainVerifier, findBlobRefs, type VerifyResult, verifyInChunks, verifyRows, verifySuffix } from "./verify";
