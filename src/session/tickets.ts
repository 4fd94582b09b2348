/**
 * Single-use WebSocket tickets (docs/API.md §2: 60 s, this session only) and the object's own
 * record of its owner's principal, in the object's storage. A ticket is opaque: 256 random
 * bits that say nothing about the token or the principal (tickets travel in URLs, which
 * proxies log); the object stores only its sha256, beside the principal it was minted for.
 */
import { sha256Hex } from "../log/hash";

const TICKET_TTL_MS = 60_000;

/** A ticket as minted: 32 random bytes, base64url without padding. Anything else (an older `<principal>.<random>` too) is refused. */
export const TICKET = /^[A-Za-z0-9_-]{43}$/;

/** A single-use ticket for a browser WebSocket, stored as its sha256. */
export function mintTicket(sql: SqlStorage, principal: string, now = Date.now()) {
  const random = crypto.getRandomValues(new Uint8Array(32));
  const ticket = btoa(String.fromCharCode(...random)).replace(/[+/=]/g, (c) => ({ "+": "-", "/": "_", "=": "" })[c]!);
  const expiresAt = now + TICKET_TTL_MS;
  sql.exec("DELETE FROM tickets WHERE expires_at < ?", now);
  sql.exec(
    "INSERT INTO tickets (hash, principal, expires_at) VALUES (?, ?, ?)",
    sha256Hex(ticket),
    principal,
    expiresAt,
  );
  return { ticket, expiresAt: new Date(expiresAt).toISOString() };
}

function ticketRow(sql: SqlStorage, hash: string) {
  return sql
    .exec<{ principal: string; expires_at: number }>("SELECT principal, expires_at FROM tickets WHERE hash = ?", hash)
    .toArray()[0];
}

/** The principal a ticket was minted for, while it is unused and unexpired; null otherwise. Does not use it up. */
export function ticketHolder(sql: SqlStorage, ticket: string, now = Date.now()): string | null {
  if (!TICKET.test(ticket)) return null;
  const row = ticketRow(sql, sha256Hex(ticket));
  return row !== undefined && row.expires_at >= now ? row.principal : null;
}

/** Uses a ticket up: valid or not, it never works twice. */
export function consumeTicket(sql: SqlStorage, ticket: string, principal: string, now = Date.now()): boolean {
  const hash = sha256Hex(ticket);
  const row = ticketRow(sql, hash);
  if (!row) return false;
  sql.exec("DELETE FROM tickets WHERE hash = ?", hash);
  return row.principal === principal && row.expires_at >= now;
}

/**
 * The principal that owns this session, kept in the object's own storage (never in the log or
 * an export, where only its owner hash appears) so that the children it spawns are its too.
 */
export function rememberPrincipal(sql: SqlStorage, principal: string) {
  sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('owner_principal', ?)", principal);
}

/**
 * The owner hash of a session written before the owner moved into seq 1, once its principal's
 * directory vouched for it (docs/API.md#upgrades). A cache of the directory: never in the log.
 */
export function adoptedOwner(sql: SqlStorage): string | null {
  const row = sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'adopted_owner'").toArray()[0];
  return row?.value ?? null;
}

export function adoptOwner(sql: SqlStorage, owner: string, principal: string) {
  sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('adopted_owner', ?)", owner);
  rememberPrincipal(sql, principal);
}

export function ownerPrincipal(sql: SqlStorage): string | null {
  const row = sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'owner_principal'").toArray()[0];
  return row?.value ?? null;
}
