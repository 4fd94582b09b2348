/**
 * The package entry (docs/API.md#your-own-tools-in-typescript): a deployment builds its Worker
 * and Durable Objects from `createHighwater({ tools })`, adding its own tools without changing
 * highwater's code.
 */
import { env } from "cloudflare:workers";
import { createApp } from "./http";
import { describeDefaultProvider } from "./model";
import { DirectoryObject, SessionObject, TokenObject } from "./session";
import { type AnyTool, buildStaticTools, installStaticTools } from "./tools";

export type { ToolEffect } from "./log";
export type { AnyTool, ToolDefinition } from "./tools";
export { type CustomToolContext, type CustomToolSpec, defineTool, ToolError } from "./tools";

export type HighwaterOptions = {
  /** The deployment's own tools, from `defineTool`. */
  tools?: readonly AnyTool[];
};

export type Highwater = {
  default: ExportedHandler<Env>;
  SessionObject: typeof SessionObject;
  DirectoryObject: typeof DirectoryObject;
  /** The MCP OAuth token store: bind it as `TOKENS` to use MCP servers behind OAuth. */
  TokenObject: typeof TokenObject;
};

/**
 * The Worker and both Durable Object classes of one deployment. Export them under these names
 * (`wrangler.toml` binds `SessionObject` and `DirectoryObject`). Throws, naming the problem,
 * when a tool cannot be added (a built-in's name, a name used twice).
 */
export function createHighwater(options: HighwaterOptions = {}): Highwater {
  const registry = buildStaticTools(options.tools ?? []);
  installStaticTools(registry);
  logStart(options.tools ?? []);
  const app = createApp();

  /** The session object of this deployment: its sessions have the deployment's tools. */
  class HighwaterSessionObject extends SessionObject {
    constructor(ctx: DurableObjectState, env: Env) {
      installStaticTools(registry);
      super(ctx, env);
    }
  }

  return {
    default: { fetch: (request, env, ctx) => app.fetch(request, env, ctx) },
    SessionObject: HighwaterSessionObject,
    DirectoryObject,
    TokenObject,
  };
}

/** The start log says which provider sessions default to, and why when it fell back to demo. */
function logStart(tools: readonly AnyTool[]) {
  if (tools.length > 0) console.log(`highwater: the deployment's own tools: ${tools.map((t) => t.name).join(", ")}`);
  try {
    console.log(describeDefaultProvider(env));
  } catch (err) {
    console.error(`highwater: model configuration: ${(err as Error).message}`);
  }
}
