import { env } from "cloudflare:workers";
import { expect, it } from "vitest";

it("appends through the object", async () => {
  const stub = env.SESSIONS.get(env.SESSIONS.idFromName("smoke"));
  const events = await stub.add("hello");
  expect(events[0]?.seq).toBe(1);
});
