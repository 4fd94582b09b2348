/**
 * The client's calls that are not about one session (docs/API.md §2): sessions created and listed,
 * the providers and tools of the deployment, and the caller's memory and skills, over one
 * transport. `HighwaterClient` (`./index.ts`) adds a session's own calls and its WebSocket.
 */
import type {
  MemoryEntry,
  MemoryPage,
  ProviderInfo,
  Session,
  SessionList,
  SessionOptions,
  SkillDetail,
  SkillInfo,
  SkillInput,
} from "../contract";
import { queryString, request } from "./http";
import type { ClientOptions, ToolList, WebSocketConstructor } from "./types";

export class PrincipalClient {
  readonly baseUrl: string;
  protected readonly token: string | undefined;
  readonly #fetch: (input: string, init?: RequestInit) => Promise<Response>;
  protected readonly WebSocket: WebSocketConstructor | undefined;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.token = options.token;
    const f = options.fetch ?? globalThis.fetch;
    // Browsers throw "Illegal invocation" when fetch is called with another `this`.
    this.#fetch = (input, init) => f(input, init);
    this.WebSocket = options.WebSocket;
  }

  createSession(options: SessionOptions = {}): Promise<Session> {
    return this.json("POST", "/v1/sessions", options);
  }

  listSessions(query: { limit?: number; before?: string } = {}): Promise<SessionList> {
    return this.json("GET", `/v1/sessions${queryString(query)}`);
  }

  /**
   * The sub-sessions a session spawned (docs/API.md §6 spawn_session), newest first: the caller's
   * sessions whose `parentId` is `parentId`, read through every page of the listing.
   */
  async listChildren(parentId: string): Promise<Session[]> {
    const out: Session[] = [];
    for (let before: string | undefined; ; ) {
      const page = await this.listSessions({ limit: 100, ...(before ? { before } : {}) });
      out.push(...page.sessions.filter((s) => s.parentId === parentId));
      if (!page.next) return out;
      before = page.next;
    }
  }

  /** The providers this Worker has credentials for; sessions may choose only these. */
  providers(): Promise<{ providers: ProviderInfo[] }> {
    return this.json("GET", "/v1/providers");
  }

  /** The tools a new session gets now, whatever their source (docs/API.md#tools). */
  tools(): Promise<ToolList> {
    return this.json("GET", "/v1/tools");
  }

  /**
   * Starts connecting the caller to an MCP server behind OAuth (docs/API.md#mcp-servers-behind-oauth):
   * the authorization server's URL to open; its consent ends at `GET /v1/oauth/callback`.
   */
  authorizeMcp(server: string): Promise<{ url: string }> {
    return this.json("POST", `/v1/mcp/${encodeURIComponent(server)}/authorize`);
  }

  /** The deployment's skills and the caller's own (docs/API.md#skills). */
  skills(): Promise<{ skills: SkillInfo[] }> {
    return this.json("GET", "/v1/skills");
  }

  skill(name: string): Promise<SkillDetail> {
    return this.json("GET", `/v1/skills/${encodeURIComponent(name)}`);
  }

  /** Creates or replaces one of the caller's skills. */
  putSkill(name: string, body: SkillInput): Promise<SkillInfo> {
    return this.json("PUT", `/v1/skills/${encodeURIComponent(name)}`, body);
  }

  async deleteSkill(name: string): Promise<void> {
    await this.request("DELETE", `/v1/skills/${encodeURIComponent(name)}`);
  }

  /** The caller's memory (docs/API.md#memory): newest first, or best first with `q`. */
  listMemory(query: { q?: string; topic?: string; limit?: number; before?: string } = {}): Promise<MemoryPage> {
    return this.json("GET", `/v1/memory${queryString(query)}`);
  }

  pinMemory(id: string, pinned: boolean): Promise<MemoryEntry> {
    return this.json("PATCH", `/v1/memory/${encodeURIComponent(id)}`, { pinned });
  }

  async forgetMemory(id: string): Promise<void> {
    await this.request("DELETE", `/v1/memory/${encodeURIComponent(id)}`);
  }

  protected async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    return (await (await this.request(method, path, body)).json()) as T;
  }

  protected request(method: string, path: string, body?: unknown): Promise<Response> {
    return request({ baseUrl: this.baseUrl, token: this.token, fetch: this.#fetch }, method, path, body);
  }
}
