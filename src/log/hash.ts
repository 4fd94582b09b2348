import { createHash } from "node:crypto";

/** digest(0): the chain's genesis value. */
export const GENESIS_DIGEST = "0".repeat(64);

/** Synchronous SHA-256 hex of a UTF-8 string or bytes (node:crypto under nodejs_compat; no await, so no input gate opens). */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** digest(n) = sha256_hex(utf8(digest(n-1) + "\n" + canonical(event_n without digest))). */
export function chainDigest(previous: string, canonicalBody: string): string {
  // One update of one string: each update crosses into the runtime and encodes its input.
  return createHash("sha256").update(`${previous}\n${canonicalBody}`).digest("hex");
}
