import { env } from "cloudflare:workers";
import { createApp } from "./http";
import { describeDefaultProvider } from "./model";

export { DirectoryObject, SessionObject } from "./session";

// The start log says which provider sessions default to, and why when it fell back to demo.
try {
  console.log(describeDefaultProvider(env));
} catch (err) {
  console.error(`highwater: model configuration: ${(err as Error).message}`);
}

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Env>;
