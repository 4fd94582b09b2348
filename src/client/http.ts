/**
 * The client's HTTP transport: one request with the bearer token, and an answer that is not 2xx
 * turned into a `HighwaterError` with the contract's error code (docs/API.md#authentication-and-errors).
 */
import { HighwaterError } from "./types";

export type Transport = {
  baseUrl: string;
  token: string | undefined;
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
};

export async function request(t: Transport, method: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = {};
  if (t.token) headers.authorization = `Bearer ${t.token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await t.fetch(`${t.baseUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (err) {
    throw new HighwaterError(0, "network_error", `${method} ${path}: ${String(err)}`, { cause: err });
  }
  if (res.ok) return res;
  const text = await res.text().catch(() => "");
  let code = `http_${res.status}`;
  let message = text.slice(0, 500) || res.statusText;
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (typeof parsed.error?.code === "string") code = parsed.error.code;
    if (typeof parsed.error?.message === "string") message = parsed.error.message;
  } catch {
    // Not the contract's shape (a proxy, a crash page): keep the status and the text.
  }
  throw new HighwaterError(res.status, code, message);
}

export function sessionPath(id: string): string {
  return `/v1/sessions/${encodeURIComponent(id)}`;
}

export function queryString(query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : "";
}
