import { describe, expect, it } from "vitest";
import { HighwaterClient } from "../../../src/client";

describe("the client's trace method (docs/API.md#traces)", () => {
  it("reads the last closed turn's trace, or a named turn's, and surfaces a 404 as an error", async () => {
    const urls: string[] = [];
    const client = new HighwaterClient({
      baseUrl: "http://hw.test",
      token: "t",
      fetch: async (url) => {
        urls.push(url);
        if (url.includes("turnId=gone"))
          return Response.json({ error: { code: "not_found", message: "unknown turn" } }, { status: 404 });
        return Response.json({ resourceSpans: [] }, { status: 200 });
      },
    });
    expect(JSON.parse(await client.trace("s"))).toEqual({ resourceSpans: [] });
    await client.trace("s", "t-1");
    await expect(client.trace("s", "gone")).rejects.toMatchObject({ status: 404, code: "not_found" });
    expect(urls).toEqual([
      "http://hw.test/v1/sessions/s/trace",
      "http://hw.test/v1/sessions/s/trace?turnId=t-1",
      "http://hw.test/v1/sessions/s/trace?turnId=gone",
    ]);
  });
});
