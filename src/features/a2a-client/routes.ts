/**
 * `POST /v1/a2a/notify/<token>` (docs/API.md#a2a-agents): where a remote agent pushes its task's
 * updates. Public (mounted before the edge's bearer auth): the token is the credential, single
 * purpose, bound to one wait of one session and spent with it. A malformed token is 401; a token
 * no open wait (or late task) holds, or a task other than the wait's, is 404; neither appends
 * anything. The body is read up to 1 MiB.
 */
import { ApiError, unwrap } from "../../contract";
import { sessionStub } from "../../http/routing";
import type { EdgeApp, EdgeContext } from "../../http/types";
import { NOTIFY_PATH } from "./agents";
import { a2aConfigOf } from "./config";
import { noticeOf } from "./task-status";

/** `<session id>.<secret>`: the session it is for, and 32 base64url characters. */
const TOKEN = /^([0-9a-f]{64})\.([A-Za-z0-9_-]{32})$/;
const MAX_NOTICE_BYTES = 1024 * 1024;

export function notifyRoutes(app: EdgeApp): void {
  app.post(`${NOTIFY_PATH}:token`, async (c) => {
    const config = a2aConfigOf(c.env as unknown as Record<string, unknown>);
    if (!config.ok) throw new ApiError("not_configured", config.message);
    const token = c.req.param("token");
    const m = TOKEN.exec(token);
    const stub = m ? sessionStub(c.env, m[1]!) : null;
    if (!stub) throw new ApiError("unauthorized", "not a notification token");
    const notice = noticeOf(await readNotice(c));
    const r = unwrap(await stub.remoteNotice({ token, taskId: notice.taskId, status: notice.status }));
    return c.json(r, 200);
  });
  app.all(`${NOTIFY_PATH}:token`, (c) => {
    c.header("Allow", "POST");
    throw new ApiError("method_not_allowed", `${c.req.method} not allowed here; use POST`);
  });
}

async function readNotice(c: EdgeContext): Promise<unknown> {
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > MAX_NOTICE_BYTES) throw new ApiError("payload_too_large", `body over ${MAX_NOTICE_BYTES} bytes`);
  const body = c.req.raw.body;
  if (!body) return null;
  // Read up to the limit, whatever the body says of its length.
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let seen = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    seen += value.byteLength;
    if (seen > MAX_NOTICE_BYTES) {
      await reader.cancel().catch(() => {});
      throw new ApiError("payload_too_large", `body over ${MAX_NOTICE_BYTES} bytes`);
    }
    chunks.push(value);
  }
  const text = new TextDecoder().decode(concat(chunks, seen));
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

function concat(chunks: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
