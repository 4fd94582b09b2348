import { ApiError, unwrap } from "../contract";
import { readNoBody } from "./body";
import { resource } from "./routing";
import { parseInput, WsQuery } from "./schemas";
import { callerOf, type EdgeApp } from "./types";

/** Tickets and the WebSocket upgrade (docs/API.md §4). */
export function socketRoutes(app: EdgeApp): void {
  resource(app, "/v1/sessions/:id/tickets", {
    POST: async (c) => {
      await readNoBody(c);
      return c.json(unwrap(await c.get("session").createTicket(callerOf(c))), 201);
    },
  });

  resource(app, "/v1/sessions/:id/ws", {
    GET: async (c) => {
      const q = parseInput(WsQuery, c.req.query(), "query");
      if (c.req.header("upgrade")?.toLowerCase() !== "websocket")
        throw new ApiError("bad_request", "expected a WebSocket upgrade");
      const url = new URL(c.req.url);
      url.search = "";
      url.searchParams.set("after", String(q.after ?? 0));
      if (q.ticket) url.searchParams.set("ticket", q.ticket);
      const headers = new Headers({ upgrade: "websocket", "x-hw-principal": c.get("principal") });
      const rate = c.get("ratePerMinute");
      if (rate) headers.set("x-hw-rate-per-minute", String(rate));
      return c.get("session").fetch(new Request(url.toString(), { headers }));
    },
  });
}
