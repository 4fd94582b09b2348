import { createHash } from "node:crypto";
import { sha256Lines, sha256Text } from "../contract/sha256";

/** digest(0): the chain's genesis value. */
export const GENESIS_DIGEST = "0".repeat(64);

/**
 * Below this many UTF-16 units a text is hashed in JavaScript (contract/sha256.ts), above it by
 * `node:crypto` (docs/design.md#3-storage): `createHash` costs about 3.5 µs before its first byte
 * (a stream Transform, two Buffers) and leaves garbage the collector pays for later, while the
 * JavaScript compression allocates nothing and takes about 0.5 µs per 100 bytes.
 */
export const SMALL_TEXT = 2048;

/** Synchronous SHA-256 hex of a UTF-8 string or bytes (no await, so no input gate opens). */
export function sha256Hex(data: string | Uint8Array): string {
  if (typeof data === "string" && data.length <= SMALL_TEXT) return sha256Text(data);
  return createHash("sha256").update(data).digest("hex");
}

/** digest(n) = sha256_hex(utf8(digest(n-1) + "\n" + canonical(event_n without digest))). */
export function chainDigest(previous: string, canonicalBody: string): string {
  if (previous.length + 1 + canonicalBody.length <= SMALL_TEXT) return sha256Lines(previous, canonicalBody);
  return createHash("sha256").update(`${previous}\n${canonicalBody}`).digest("hex");
}
