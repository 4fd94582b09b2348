import { describe, expect, it } from "vitest";
import { HighwaterClient, HighwaterError } from "../../../src/client";

/** docs/API.md §6: the client's resume call, its path, body and the 409 it can meet. */
describe("client.resume", () => {
  it("posts { waitId, text? } to /runs/:runId/resume and answers { seq }; a 409 is a HighwaterError", async () => {
    const seen: { url: string; method?: string; body: unknown }[] = [];
    let status = 202;
    const client = new HighwaterClient({
      baseUrl: "http://hw.test",
      token: "t",
      fetch: async (url, init) => {
        seen.push({ url: String(url), method: init?.method, body: JSON.parse(String(init?.body)) });
        return status === 202
          ? Response.json({ seq: 9 }, { status })
          : Response.json({ error: { code: "conflict", message: "stale" } }, { status });
      },
    });
    expect(await client.resume("s1", "run 1", { waitId: "budget:t:1", text: "go on" })).toEqual({ seq: 9 });
    expect(await client.resume("s1", "r1", { waitId: "wait:c1" })).toEqual({ seq: 9 });
    expect(seen[0]).toEqual({
      url: "http://hw.test/v1/sessions/s1/runs/run%201/resume",
      method: "POST",
      body: { waitId: "budget:t:1", text: "go on" },
    });
    expect(seen[1]?.body).toEqual({ waitId: "wait:c1" });
    status = 409;
    const err = await client.resume("s1", "r1", { waitId: "wait:old" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HighwaterError);
    expect(err).toMatchObject({ status: 409, code: "conflict" });
  });
});
