import { describe, expect, it } from "vitest";
import { HighwaterClient } from "../../../src/client";

describe("the client's record and fork methods", () => {
  it("call the routes of docs/API.md §6 with their bodies, and surface a 409 as an error", async () => {
    const seen: { method: string; url: string; body: unknown }[] = [];
    const client = new HighwaterClient({
      baseUrl: "http://hw.test",
      token: "t",
      fetch: async (url, init) => {
        seen.push({ method: init?.method ?? "GET", url, body: init?.body ? JSON.parse(String(init.body)) : null });
        if (url.endsWith("/records/stale"))
          return Response.json({ error: { code: "conflict", message: "stale" } }, { status: 409 });
        return Response.json({}, { status: 200 });
      },
    });
    await client.records("s");
    await client.record("s", "plan");
    await client.putRecord("s", "plan", { content: "c", expectedRevision: 0 });
    await client.appendRecordEntry("s", "plan", { text: "t", refs: [1] });
    await client.fork("s", 3);
    await expect(client.putRecord("s", "stale", { content: "c", expectedRevision: 0 })).rejects.toMatchObject({
      status: 409,
      code: "conflict",
    });
    expect(seen.slice(0, 5)).toEqual([
      { method: "GET", url: "http://hw.test/v1/sessions/s/records", body: null },
      { method: "GET", url: "http://hw.test/v1/sessions/s/records/plan", body: null },
      { method: "PUT", url: "http://hw.test/v1/sessions/s/records/plan", body: { content: "c", expectedRevision: 0 } },
      { method: "POST", url: "http://hw.test/v1/sessions/s/records/plan/entries", body: { text: "t", refs: [1] } },
      { method: "POST", url: "http://hw.test/v1/sessions/s/fork", body: { throughSeq: 3 } },
    ]);
  });
});
