/**
 * Single-use WebSocket tickets (docs/API.md §2: 60 s, this session only), in the object's
 * storage (the owner's principal: `admission.ts`). A ticket is opaque: 256 random
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
