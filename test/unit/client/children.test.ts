import { describe, expect, it } from "vitest";
import { HighwaterClient } from "../../../src/client";

/** docs/API.md §2, §6: children are listed for the parent's principal with their parentId. */
describe("client.listChildren", () => {
  it("pages through the whole listing and keeps only the parent's children", async () => {
    const urls: string[] = [];
    const pages: Record<string, unknown> = {
      "": {
        sessions: [
          { id: "a", parentId: "p" },
          { id: "b", parentId: null },
        ],
        next: "c1",
      },
      c1: {
        sessions: [
          { id: "c", parentId: "other" },
          { id: "d", parentId: "p" },
        ],
      },
    };
    const client = new HighwaterClient({
      baseUrl: "http://hw.test",
      token: "t",
      fetch: async (url) => {
        urls.push(String(url));
        const before = new URL(String(url)).searchParams.get("before") ?? "";
        return Response.json(pages[before]);
      },
    });
    const children = await client.listChildren("p");
    expect(children.map((s) => s.id)).toEqual(["a", "d"]);
    expect(urls).toHaveLength(2);
    expect(urls[1]).toContain("before=c1");
  });
});
