import { canonical } from "./canonical";
import { sha256Text } from "./sha256";

/**
 * The digest a human approval is bound to: over the args exactly as in the `functionCall`
 * event; for args kept as a `$blob`, over its bytes, which is the blob's own sha256. `sha256`
 * hashes UTF-8 text to lowercase hex (the Worker passes `node:crypto`'s, browsers the default).
 */
export function argsDigest(args: unknown, sha256: (text: string) => string = sha256Text): string {
  const blob = (args as { $blob?: { sha256?: unknown } } | null)?.$blob;
  if (blob && typeof blob.sha256 === "string") return blob.sha256;
  return sha256(canonical(args ?? null));
}
