/** What every element shares with the shell: navigation, the 401 signal and the composer's drafts. */
import { HighwaterError } from "../../src/client";

export const TOKEN_KEY = "highwater.token";
const DRAFT_KEY = "highwater.draft.";

/** Fired by any element that got a 401: the stored token is wrong. */
export const UNAUTHORIZED = "hw-unauthorized";

/** Tells the shell about a 401; returns whether `err` was one. */
export function handleAuth(from: Element, err: unknown): boolean {
  if (!(err instanceof HighwaterError && err.status === 401)) return false;
  from.dispatchEvent(new CustomEvent(UNAUTHORIZED, { bubbles: true, composed: true }));
  return true;
}

export function navigate(path: string): void {
  history.pushState(null, "", path);
  window.dispatchEvent(new PopStateEvent("popstate"));
}

/**
 * A session's unsent message, kept in this tab until it is sent: the demo preset's task and
 * whatever was typed survive leaving the page and coming back.
 */
export function saveDraft(sessionId: string, text: string): void {
  if (text) sessionStorage.setItem(DRAFT_KEY + sessionId, text);
  else sessionStorage.removeItem(DRAFT_KEY + sessionId);
}

export function loadDraft(sessionId: string): string {
  return sessionStorage.getItem(DRAFT_KEY + sessionId) ?? "";
}

/** A random idempotency key (getRandomValues works outside a secure context; randomUUID does not). */
export function randomKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Saves `text` as a file the browser downloads. */
export function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
