/**
 * The package entry (docs/API.md#your-own-tools-in-typescript): a deployment builds its Worker
 * and Durable Objects from `createHighwater({ tools })`, adding its own tools without changing
 * highwater's code.
 */
import { env } from "cloudflare:workers";
import {
  buildDeploymentSkills,
  type DeploymentSkill,
  FEATURES,
  type Feature,
  installDeploymentSkills,
} from "./features";
import { ChannelObject, MemoryObject, SkillsObject } from "./features/objects";
import { createApp } from "./http";
import { describeDefaultProvider } from "./model";
import { DirectoryObject, SessionObject, TokenObject } from "./session";
import { type AnyTool, buildStaticTools, installStaticTools } from "./tools";

export type { DeploymentSkill, Feature } from "./features";
export { FEATURES } from "./features";
export type { ToolEffect } from "./log";
export type { AnyTool, ToolDefinition } from "./tools";
export { type CustomToolContext, type CustomToolSpec, defineTool, ToolError } from "./tools";

export type HighwaterOptions = {
  /** The deployment's own tools, from `defineTool`. */
  tools?: readonly AnyTool[];
  /** The deployment's features, in mounting order (default: the built-in `FEATURES`). */
  features?: readonly Feature[];
  /**
   * The deployment's skills (docs/API.md#skills), bundled at build time: each folder's name, its
   * `SKILL.md` text and its other files. Every principal's sessions are shown them.
   */
  skills?: readonly DeploymentSkill[];
};

export type Highwater = {
  default: ExportedHandler<Env>;
  SessionObject: typeof SessionObject;
  DirectoryObject: typeof DirectoryObject;
  /** docs/API.md#memory: one per principal. */
  MemoryObject: typeof MemoryObject;
  /** docs/API.md#skills: one per principal. */
  SkillsObject: typeof SkillsObject;
  /** The MCP OAuth token store: bind it as `TOKENS` to use MCP servers behind OAuth. */
  TokenObject: typeof TokenObject;
  /** docs/API.md#channels: one per channel of `CHANNELS`; bind it as `CHANNEL_OBJECTS`. */
  ChannelObject: typeof ChannelObject;
};

/**
 * The Worker and the Durable Object classes of one deployment. Export them under these names
 * (`wrangler.toml` binds `SessionObject`, `DirectoryObject` and each feature's object). The
 * feature list is handed down to the edge, the object and its runtime (docs/design.md#plugs).
 * Throws, naming the problem, when a feature or a tool cannot be added (a name listed twice, a
 * built-in's name) or a skill is
 * bad (no valid front matter, a name that is not its folder's, files over the limits).
 */
export function createHighwater(options: HighwaterOptions = {}): Highwater {
  const features = options.features ?? FEATURES;
  const registry = buildStaticTools(options.tools ?? [], features);
  installStaticTools(registry);
  const skills = buildDeploymentSkills(options.skills ?? []);
  installDeploymentSkills(skills);
  logStart(options.tools ?? []);
  const app = createApp(features);

  /** The session object of this deployment: its sessions have the deployment's tools. */
  class HighwaterSessionObject extends SessionObject {
    constructor(ctx: DurableObjectState, env: Env) {
      installStaticTools(registry);
      installDeploymentSkills(skills);
      super(ctx, env, features);
    }
  }

  return {
    default: { fetch: (request, env, ctx) => app.fetch(request, env, ctx) },
    SessionObject: HighwaterSessionObject,
    DirectoryObject,
    MemoryObject,
    SkillsObject,
    TokenObject,
    ChannelObject,
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
