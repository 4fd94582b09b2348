/**
 * The MCP OAuth token store (docs/API.md#mcp-servers-behind-oauth): a Durable Object of its own,
 * one per principal (and one for the deployment's client-credentials grants and the pending
 * authorizations). Every row is AES-GCM encrypted with a key derived from the Worker secret
 * `TOKEN_ENCRYPTION_KEY`, bound to its row by the additional data; a `state` is kept only as
 * its SHA-256. Nothing here is logged, and nothing of it reaches a session's log.
 */
import { DurableObject } from "cloudflare:workers";
import { sha256Hex } from "../log";
import { applyMigrations } from "../storage";
import type { PendingAuthorization, StoredGrant } from "../tools/mcp/oauth";

const TOKEN_MIGRATIONS = [
  {
    id: "0001_tokens",
    sql: `CREATE TABLE grants (owner TEXT NOT NULL, server TEXT NOT NULL, iv BLOB NOT NULL, data BLOB NOT NULL, PRIMARY KEY (owner, server));
CREATE TABLE pending (state_hash TEXT PRIMARY KEY, iv BLOB NOT NULL, data BLOB NOT NULL, expires_at INTEGER NOT NULL)`,
  },
];

const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

/** The AES-256-GCM key of a secret (its SHA-256), derived once per distinct secret. */
function keyOf(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle
      .digest("SHA-256", encoder.encode(`highwater token key\u0000${secret}`))
      .then((raw) => crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]));
    keys.set(secret, key);
  }
  return key;
}

export class TokenObject extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.transactionSync(() => applyMigrations(ctx.storage.sql, TOKEN_MIGRATIONS));
  }

  async get(owner: string, server: string): Promise<StoredGrant | null> {
    const row = this.ctx.storage.sql
      .exec<{ iv: ArrayBuffer; data: ArrayBuffer }>(
        "SELECT iv, data FROM grants WHERE owner = ? AND server = ?",
        owner,
        server,
      )
      .toArray()[0];
    if (!row) return null;
    // A row another key wrote (the secret was rotated) cannot be read: authorize again.
    return (await this.#open(row, `grant\u0000${owner}\u0000${server}`)) as StoredGrant | null;
  }

  async put(owner: string, server: string, grant: StoredGrant): Promise<void> {
    const { iv, data } = await this.#seal(grant, `grant\u0000${owner}\u0000${server}`);
    this.ctx.storage.sql.exec(
      "INSERT OR REPLACE INTO grants (owner, server, iv, data) VALUES (?, ?, ?, ?)",
      owner,
      server,
      iv,
      data,
    );
  }

  delete(owner: string, server: string): void {
    this.ctx.storage.sql.exec("DELETE FROM grants WHERE owner = ? AND server = ?", owner, server);
  }

  async putPending(state: string, pending: PendingAuthorization): Promise<void> {
    const hash = sha256Hex(state);
    const { iv, data } = await this.#seal(pending, `pending\u0000${hash}`);
    const sql = this.ctx.storage.sql;
    sql.exec("DELETE FROM pending WHERE expires_at <= ?", Date.now());
    sql.exec(
      "INSERT INTO pending (state_hash, iv, data, expires_at) VALUES (?, ?, ?, ?)",
      hash,
      iv,
      data,
      pending.expiresAt,
    );
  }

  /** The pending authorization of `state`, deleted before it is read: a state is used once. */
  async takePending(state: string): Promise<PendingAuthorization | null> {
    const hash = sha256Hex(state);
    const row = this.ctx.storage.sql
      .exec<{ iv: ArrayBuffer; data: ArrayBuffer }>("DELETE FROM pending WHERE state_hash = ? RETURNING iv, data", hash)
      .toArray()[0];
    if (!row) return null;
    return (await this.#open(row, `pending\u0000${hash}`)) as PendingAuthorization | null;
  }

  async #seal(value: unknown, aad: string): Promise<{ iv: ArrayBuffer; data: ArrayBuffer }> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const data = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: encoder.encode(aad) },
      await this.#key(),
      encoder.encode(JSON.stringify(value)),
    );
    return { iv: iv.buffer, data };
  }

  async #open(row: { iv: ArrayBuffer; data: ArrayBuffer }, aad: string): Promise<unknown> {
    try {
      const plain = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: new Uint8Array(row.iv), additionalData: encoder.encode(aad) },
        await this.#key(),
        row.data,
      );
      return JSON.parse(new TextDecoder().decode(plain));
    } catch {
      return null;
    }
  }

  #key(): Promise<CryptoKey> {
    const secret = this.env.TOKEN_ENCRYPTION_KEY;
    if (!secret) throw new Error("TOKEN_ENCRYPTION_KEY is not set");
    return keyOf(secret);
  }
}
