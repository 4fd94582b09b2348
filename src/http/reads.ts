import { ApiError, unwrap } from "../contract";
import type { Caller } from "../session";
import { normalizeWorkspacePath } from "../tools";
import { afterAnswer, pageCache, pageKey, storedPage } from "./edge-cache";
import { resource } from "./routing";
import { ArchiveQuery, EventsQuery, FilesQuery, parseInput, SHA256, TraceQuery, TranscriptQuery } from "./schemas";
import { parsedBody } from "./turns";
import { callerOf, type EdgeApp, type EdgeContext } from "./types";

type EventsPage = { events: { digest: string }[]; highWater: number; headDigest: string };

const IMMUTABLE = "private, max-age=31536000, immutable";

/** Reading a session: the log, its projections, the archive and the workspace. */
export function readRoutes(app: EdgeApp): void {
  resource(app, "/v1/sessions/:id/events", {
    GET: async (c) => {
      const q = parseInput(EventsQuery, c.req.query(), "query");
      const after = q.after ?? 0;
      const limit = q.limit ?? 500;
      const id = c.req.param("id") ?? "";
      // docs/API.md §7.22: a full page is looked up after auth, under the caller's own key.
      const cache = pageCache(c);
      const key = cache ? pageKey(c, id, after, limit) : null;
      // A reader that asks `Cache-Control: no-cache` (as HTTP lets it) is answered by the object.
      const revalidate = /no-cache/i.test(c.req.header("cache-control") ?? "");
      const hit = cache && key && !revalidate ? await cache.match(key) : undefined;
      if (hit) {
        // Only the edge answered: nothing asked the object (and so nothing admitted it again).
        c.set("askedObject", true);
        return answerFullPage(c, await hit.text(), hit.headers.get("etag") ?? "", "hit");
      }
      const { cacheable, ...page } = unwrap(
        await c.get("session").readEvents(callerOf(c), after, limit),
      ) as EventsPage & { cacheable: boolean };
      // A full page never changes (docs/API.md §7.21); a page at the head may grow.
      const last = page.events.at(-1);
      if (page.events.length < limit || !last) {
        c.header("Cache-Control", "private, no-cache");
        return c.json(page);
      }
      const etag = `W/"${last.digest}"`;
      const body = JSON.stringify(page);
      // Pages of a session with a jurisdiction never leave the object's answer (§7.22).
      if (cache && key && cacheable) await afterAnswer(c, cache.put(key, storedPage(body, etag)));
      return answerFullPage(c, body, etag, cache && cacheable ? "miss" : "bypass");
    },
  });

  resource(app, "/v1/sessions/:id/transcript", {
    GET: async (c) => {
      const q = parseInput(TranscriptQuery, c.req.query(), "query");
      return c.json(
        unwrap(await c.get("session").transcript(callerOf(c), { after: q.after ?? 0, limit: q.limit ?? 200 })),
      );
    },
  });

  // docs/API.md#traces: a turn's OpenTelemetry trace, built from the log.
  resource(app, "/v1/sessions/:id/trace", {
    GET: async (c) => {
      const q = parseInput(TraceQuery, c.req.query(), "query");
      return c.json(unwrap(await c.get("session").turnTrace(callerOf(c), q.turnId ?? null)));
    },
  });

  resource(app, "/v1/sessions/:id/context", {
    GET: async (c) => c.json(unwrap(await c.get("session").context(callerOf(c)))),
  });

  resource(app, "/v1/sessions/:id/verify", {
    GET: async (c) => c.json(unwrap(await c.get("session").verify(callerOf(c)))),
  });

  resource(app, "/v1/sessions/:id/export", {
    GET: async (c) => exportNdjson(c.get("session"), callerOf(c)),
  });

  resource(app, "/v1/sessions/:id/archive/:sha256", {
    GET: async (c) => {
      const sha = c.req.param("sha256") ?? "";
      // One RPC: the object looks the ref up before it answers a bad query (docs/API.md §7.1).
      const range = await parsedBody(() => {
        const q = parseInput(ArchiveQuery, c.req.query(), "query");
        return { offset: q.offset ?? 0, limit: q.limit };
      });
      const r = unwrap(await c.get("session").archive(callerOf(c), SHA256.test(sha) ? sha : "", range));
      return new Response(r.bytes, { headers: { "content-type": r.mediaType, "x-archive-bytes": String(r.total) } });
    },
  });

  resource(app, "/v1/sessions/:id/files", {
    GET: async (c) => {
      const q = parseInput(FilesQuery, c.req.query(), "query");
      return c.json(
        unwrap(await c.get("session").files(callerOf(c), { after: q.after ?? null, limit: q.limit ?? 1000 })),
      );
    },
  });

  resource(app, "/v1/sessions/:id/files/*", {
    GET: async (c) => {
      // The raw path, decoded once by the workspace rules (docs/API.md §5, §7.4), not by the router's param.
      const raw = c.req.path.replace(/^\/v1\/sessions\/[^/]+\/files\//, "");
      const norm = normalizeWorkspacePath(raw);
      if (!norm.ok) throw new ApiError("bad_request", `path: ${norm.message}`);
      const content = unwrap(await c.get("session").file(callerOf(c), norm.path));
      return c.text(content, 200, { "content-type": "text/plain; charset=utf-8" });
    },
  });
}

/** A full page's answer, from the object or the cache alike: ETag, immutable, 304 on a match. */
function answerFullPage(c: EdgeContext, body: string, etag: string, cacheState: "hit" | "miss" | "bypass"): Response {
  c.header("ETag", etag);
  c.header("Cache-Control", IMMUTABLE);
  c.header("x-hw-edge-cache", cacheState);
  if (matchesEtag(c.req.header("if-none-match"), etag)) return c.body(null, 304);
  return c.body(body, 200, { "content-type": "application/json" });
}

/** `If-None-Match` holds `etag` (a list, `*`, or weak/strong forms of the same tag). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = etag.replace(/^W\//, "");
  return header.split(",").some((t) => {
    const tag = t.trim();
    return tag === "*" || tag.replace(/^W\//, "") === bare;
  });
}

type SessionStub = ReturnType<Env["SESSIONS"]["get"]>;

/** NDJSON paged from the object, so neither side holds the whole log. */
async function exportNdjson(stub: SessionStub, caller: Caller): Promise<Response> {
  const first = unwrap(await stub.exportPage(caller, 0, 500));
  const encoder = new TextEncoder();
  let cursor = first.last;
  let done = first.done;
  let pending: string | null = first.text;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (pending !== null) {
        controller.enqueue(encoder.encode(pending));
        pending = null;
        if (done) controller.close();
        return;
      }
      // Only the first page counts against the rate: the rest are the same request.
      const page = unwrap(await stub.exportPage({ principal: caller.principal }, cursor, 500));
      if (page.text) controller.enqueue(encoder.encode(page.text));
      cursor = page.last;
      done = page.done;
      if (done) controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "application/x-ndjson; charset=utf-8" } });
}
