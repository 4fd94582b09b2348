declare namespace Cloudflare {
  interface Env {
    SESSIONS: DurableObjectNamespace<import("./session").SessionObject>;
    DIRECTORY: DurableObjectNamespace<import("./session").DirectoryObject>;
    /** docs/API.md#memory: one object per principal. */
    MEMORY: DurableObjectNamespace<import("./features/memory/object").MemoryObject>;
    /** Each principal's own skills (docs/API.md#skills); absent: only the deployment's. */
    SKILLS?: DurableObjectNamespace<import("./features/skills/object").SkillsObject>;
    /** The MCP OAuth token store (docs/API.md#mcp-servers-behind-oauth); needed only with an OAuth server. */
    TOKENS?: DurableObjectNamespace<import("./session/token-object").TokenObject>;
    /** docs/API.md#channels: one object per channel of `CHANNELS`. */
    CHANNEL_OBJECTS?: DurableObjectNamespace<import("./features/channels/object").ChannelObject>;
    /** docs/API.md#channels: JSON array of Slack and Telegram channels. */
    CHANNELS?: string;
    ASSETS: Fetcher;
    /** The Workers AI binding: declared only in `[env.production]` (it has no local simulation). */
    AI?: Ai;
    /** The rate-limiting binding (`[[ratelimits]]`), where configured (docs/API.md §7.25). */
    RATE_LIMITER?: RateLimit;
    API_TOKENS?: string;
    ALLOWED_ORIGINS?: string;
    MODEL_PROVIDER?: string;
    MODEL_BASE_URL?: string;
    MODEL_API_KEY?: string;
    MODEL_NAME?: string;
    MODEL_CONTEXT_WINDOW?: string;
    MODEL_MAX_OUTPUT_TOKENS?: string;
    HTTP_TOOL_ALLOWED_HOSTS?: string;
    /** docs/API.md#a2a-server: the hosts A2A push notifications may go to (the `HTTP_TOOL_ALLOWED_HOSTS` syntax). */
    A2A_PUSH_ALLOWED_HOSTS?: string;
    /** docs/API.md#a2a-server: the agent card's name (default `highwater`). */
    A2A_AGENT_NAME?: string;
    /** JSON array of MCP servers (docs/API.md#mcp-servers). */
    MCP_SERVERS?: string;
    /** JSON array of remote A2A agents, each a tool `<name>__send` (docs/API.md#a2a-agents). */
    A2A_AGENTS?: string;
    /** The Worker's public origin: where remote agents push notifications (docs/API.md#a2a-agents); unset: polling only. */
    PUBLIC_URL?: string;
    /** The secret MCP OAuth tokens are encrypted with at rest (docs/API.md#mcp-servers-behind-oauth). */
    TOKEN_ENCRYPTION_KEY?: string;
    /** `NAME=hostpattern,…`: the secrets http_fetch may send, each only to its hosts (docs/API.md#secrets). */
    HTTP_TOOL_SECRETS?: string;
    OFFLOAD_THRESHOLD_BYTES?: string;
    RATE_LIMIT_PER_MINUTE?: string;
    /** docs/API.md#sending-traces-to-a-collector: the OTLP/HTTP collector closed turns' traces go to. */
    OTEL_EXPORTER_OTLP_ENDPOINT?: string;
    OTEL_EXPORTER_OTLP_HEADERS?: string;
    /** Test-only: a named failpoint (docs/design.md §5) at which the object stops for the harness to kill it. */
    HW_FAILPOINT?: string;
    HW_FAILPOINT_URL?: string;
    HW_TEST_MODE?: string;
    /** Test only: local workerd has no jurisdictions; record one on an ordinary object instead of refusing. */
    HW_SIMULATE_JURISDICTIONS?: string;
    /** Test-only: ms between the demo model's streamed chunks (default 15). */
    HW_DEMO_CHUNK_DELAY_MS?: string;
  }
}
interface Env extends Cloudflare.Env {}
