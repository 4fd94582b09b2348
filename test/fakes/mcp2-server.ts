/**
 * An MCP server on the official 2.x server SDK (`createMcpHandler`): it speaks 2026-07-28 to a
 * client that negotiates it and serves 2025-era requests statelessly. A fetch function, so it runs
 * inside the test's own Worker (test/do) as well as behind a Node HTTP server.
 *
 * Its tools: `lookup` (read-only, answers at once) and `confirm` (asks a person first: on
 * 2026-07-28 by answering `input_required` and reading the answer from the call made again; on a
 * 2025-era request by `elicitInput` over the open stream). Every call is counted with its key and
 * the answers it carried.
 */
import { acceptedContent, createMcpHandler, inputRequired, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

export const CONFIRM_FORM = {
  type: "object",
  properties: {
    approve: { type: "boolean", description: "Go ahead?" },
    note: { type: "string", maxLength: 20 },
  },
  required: ["approve"],
} as const;

export type Mcp2Call = {
  tool: string;
  key: string | null;
  era: "legacy" | "modern";
  args: unknown;
  /** The answers the call carried (2026-07-28 re-call) or got over the stream (2025-era). */
  answers?: unknown;
};

export type Mcp2Server = {
  fetch: typeof fetch;
  calls: Mcp2Call[];
  /** The `MCP-Protocol-Version` header of every POST. */
  versions: string[];
};

export function mcp2Server(): Mcp2Server {
  const self: Mcp2Server = { calls: [], versions: [], fetch: null as never };
  const factory = ({ era }: { era: "legacy" | "modern" }) => {
    const server = new McpServer({ name: "mcp2", version: "1" }, { capabilities: { tools: {} } });
    server.registerTool(
      "lookup",
      {
        description: "Find an order",
        inputSchema: z.object({ id: z.string() }),
        annotations: { readOnlyHint: true },
      },
      async ({ id }, ctx) => {
        self.calls.push({ tool: "lookup", key: keyOf(ctx), era, args: { id } });
        return { content: [{ type: "text", text: `order ${id}: shipped` }] };
      },
    );
    server.registerTool(
      "confirm",
      { description: "Do something once a person approves", inputSchema: z.object({ what: z.string() }) },
      async ({ what }, ctx) => {
        if (era === "legacy") {
          const answer = await ctx.mcpReq.elicitInput({
            message: `Approve ${what}?`,
            requestedSchema: CONFIRM_FORM as never,
          });
          self.calls.push({ tool: "confirm", key: keyOf(ctx), era, args: { what }, answers: answer });
          return { content: [{ type: "text", text: `${answer.action}: ${JSON.stringify(answer.content ?? null)}` }] };
        }
        const responses = ctx.mcpReq.inputResponses;
        self.calls.push({
          tool: "confirm",
          key: keyOf(ctx),
          era,
          args: { what },
          ...(responses ? { answers: responses } : {}),
        });
        if (!responses?.approval)
          return inputRequired({
            inputRequests: {
              approval: inputRequired.elicit({ message: `Approve ${what}?`, requestedSchema: CONFIRM_FORM as never }),
            },
            requestState: `state-for-${what}`,
          });
        const content = acceptedContent(responses, "approval");
        const action = (responses.approval as { action?: string }).action;
        return { content: [{ type: "text", text: `${action}: ${JSON.stringify(content ?? null)}` }] };
      },
    );
    return server;
  };
  const handler = createMcpHandler(factory as never, { responseMode: "json" });
  self.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    if (request.method === "POST") self.versions.push(request.headers.get("mcp-protocol-version") ?? "");
    return handler.fetch(request);
  }) as typeof fetch;
  return self;
}

function keyOf(ctx: unknown): string | null {
  const meta = (ctx as { mcpReq?: { _meta?: Record<string, unknown> } }).mcpReq?._meta;
  const key = meta?.["io.highwater/idempotency-key"];
  return typeof key === "string" ? key : null;
}
