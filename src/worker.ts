import { createApp } from "./http/app";

export { DirectoryObject, SessionObject } from "./session";

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Env>;
