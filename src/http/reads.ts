import { ApiError, unwrap } from "../contract";
import { normalizeWorkspacePath } from "../tools";
import { resource } from "./routing";
import { ArchiveQuery, EventsQuery, FilesQuery, parseInput, SHA256, TranscriptQuery } from "./schemas";
import type { EdgeApp } from "./types";

type EventsPage = { events: { digest: string }[]; highWater: number; headDigest: string };

const IMMUTABLE = "private, max-age=31536000, immutable";

/** Reading a session: the log, its projections, the archive and the workspace. */
export function readRoutes(app: EdgeApp): void {
  resource(app, "/v1/sessions/:id/events", {
    GET: async (c) => {
      const q = parseInput(EventsQuery, c.req.query(), "query");
      const limit = q.limit ?? 500;
      const page = unwrap(await c.get("session").readEvents(q.after ?? 0, limit)) as EventsPage;
      // A full page never changes (CONTRACT §7.21); a page at the head may grow.
      const last = page.events.at(-1);
      if (page.events.length < limit || !last) {
        c.header("Cache-Control", "private, no-cache");
        return c.json(page);
      }
      const etag = `W/"${last.digest}"`;
      c.header("ETag", etag);
      c.header("Cache-Control", IMMUTABLE);
      if (matchesEtag(c.req.header("if-none-match"), etag)) return c.body(null, 304);
      return c.json(page);
    },
  });

  resource(app, "/v1/sessions/:id/transcript", {
    GET: async (c) => {
      const q = parseInput(TranscriptQuery, c.req.query(), "query");
      return c.json(unwrap(await c.get("session").transcript({ after: q.after ?? 0, limit: q.limit ?? 200 })));
    },
  });

  resource(app, "/v1/sessions/:id/context", {
    GET: async (c) => c.json(unwrap(await c.get("session").context())),
  });

  resource(app, "/v1/sessions/:id/verify", {
    GET: async (c) => c.json(unwrap(await c.get("session").verify())),
  });

  resource(app, "/v1/sessions/:id/export", {
    GET: async (c) => exportNdjson(c.get("session")),
  });

  resource(app, "/v1/sessions/:id/archive/:sha256", {
    GET: async (c) => {
      const sha = c.req.param("sha256") ?? "";
      // The ref is looked up before the query is validated (CONTRACT §7.1).
      if (!SHA256.test(sha) || !(await c.get("session").hasArchive(sha)))
        throw new ApiError("not_found", "unknown archive ref");
      const q = parseInput(ArchiveQuery, c.req.query(), "query");
      const r = unwrap(await c.get("session").archive(sha, q.offset ?? 0, q.limit));
      return new Response(r.bytes, { headers: { "content-type": r.mediaType, "x-archive-bytes": String(r.total) } });
    },
  });

  resource(app, "/v1/sessions/:id/files", {
    GET: async (c) => {
      const q = parseInput(FilesQuery, c.req.query(), "query");
      return c.json(unwrap(await c.get("session").files({ after: q.after ?? null, limit: q.limit ?? 1000 })));
    },
  });

  resource(app, "/v1/sessions/:id/files/*", {
    GET: async (c) => {
      // The raw path, decoded once by the workspace rules (CONTRACT §5, §7.4), not by the router's param.
      const raw = c.req.path.replace(/^\/v1\/sessions\/[^/]+\/files\//, "");
      const norm = normalizeWorkspacePath(raw);
      if (!norm.ok) throw new ApiError("bad_request", `path: ${norm.message}`);
      const content = unwrap(await c.get("session").file(norm.path));
      return c.text(content, 200, { "content-type": "text/plain; charset=utf-8" });
    },
  });
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
async function exportNdjson(stub: SessionStub): Promise<Response> {
  const first = unwrap(await stub.exportPage(0, 500));
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
      const page = unwrap(await stub.exportPage(cursor, 500));
      if (page.text) controller.enqueue(encoder.encode(page.text));
      cursor = page.last;
      done = page.done;
      if (done) controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "application/x-ndjson; charset=utf-8" } });
}
