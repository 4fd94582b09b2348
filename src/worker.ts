import { DurableObject } from "cloudflare:workers";
import { applyMigrations } from "./storage";
import { EventStore } from "./log";

export class SessionObject extends DurableObject<Env> {
  store: EventStore;
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.transactionSync(() => applyMigrations(ctx.storage.sql));
    this.store = new EventStore(ctx.storage.sql, "s", (fn) => ctx.storage.transactionSync(fn));
  }
  async add(text: string) {
    return this.store.append([{ author: "user", modelVisibility: "visible", content: { type: "text", text } }]);
  }
}
export class DirectoryObject extends DurableObject<Env> {}
export default {
  async fetch(req: Request, env: Env) {
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName("x"));
    return Response.json(await stub.add("hi"));
  },
};
