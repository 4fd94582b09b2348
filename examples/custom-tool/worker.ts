/**
 * A highwater deployment with one tool of its own: `lookup_order` asks an order service
 * (`ORDERS_URL`) for an order, and one skill of its own (examples/skills/release-notes). The
 * runtime, its routes and its Durable Objects come from the package entry; only the tool and
 * the skill are this deployment's.
 */
import { createHighwater, defineTool, ToolError } from "highwater";
import { z } from "zod";
// A skill folder bundled at build time (wrangler.toml bundles `*.md` as text).
import releaseNotes from "../skills/release-notes/SKILL.md";
import releaseNotesTemplate from "../skills/release-notes/template.md";

const lookupOrder = defineTool({
  name: "lookup_order",
  description: "Find an order by id: its status and items.",
  input: z.object({ id: z.string().min(1).max(64).describe("The order id, e.g. A-1001") }),
  // A read is run again after a crash; the key lets the service see that it is the same call.
  effect: "read",
  async run({ id }, ctx) {
    const base = ctx.env.ORDERS_URL;
    if (typeof base !== "string" || base === "") throw new ToolError("not_configured", "ORDERS_URL is not set");
    const headers: Record<string, string> = { "idempotency-key": ctx.idempotencyKey };
    const token = ctx.secret("ORDERS_TOKEN");
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(`${base.replace(/\/$/, "")}/orders/${encodeURIComponent(id)}`, {
      headers,
      signal: ctx.signal,
    });
    if (res.status === 404) throw new ToolError("order_not_found", `no order ${id}`);
    if (!res.ok) throw new ToolError("orders_unavailable", `the order service answered ${res.status}`);
    return await res.json();
  },
});

export const {
  SessionObject,
  DirectoryObject,
  MemoryObject,
  SkillsObject,
  default: worker,
} = createHighwater({ tools: [lookupOrder] });
export default worker;
