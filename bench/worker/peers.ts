/** The peers: agents' Sessions and @cloudflare/ai-chat, each on its documented install. */
import { DurableObject } from "cloudflare:workers";
import { AIChatAgent } from "@cloudflare/ai-chat";
import { Lifecycle } from "agents/lifecycle";
import { Sessions } from "agents/sessions";
import type { BenchEnv } from "./index";
import { EVENT_BYTES, sized } from "./rows";

type Message = { id: string; role: "user" | "assistant"; parts: { type: "text"; text: string }[] };

function peerMessage(id: string, salt: number): Message {
  const make = (text: string): Message => ({ id, role: "assistant", parts: [{ type: "text", text }] });
  return make(sized(EVENT_BYTES, salt, (t) => JSON.stringify(make(t))));
}

export class BenchAgentsSessions extends DurableObject<BenchEnv> {
  readonly sessions = new Sessions();
  readonly lifecycle = Lifecycle.install(this).use(this.sessions);
  readonly session = this.sessions.session();
  #next = 0;

  empty(): null {
    return null;
  }

  async count(): Promise<number> {
    await this.lifecycle.start();
    return this.ctx.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM cf_agents_session_messages").one().n;
  }

  /** Pre-fills to `n` messages through its own append (not timed). */
  async fill(n: number): Promise<number> {
    await this.lifecycle.start();
    for (let have = await this.count(); have < n; have++) await this.session.appendMessage(this.#message());
    return this.count();
  }

  #message(): Message {
    const i = this.#next++;
    return peerMessage(`m_${Date.now().toString(36)}_${i}`, i);
  }

  /** `k` awaited appends of one ~500-byte message each; returns the ids for `truncate`. */
  async append(k: number) {
    await this.lifecycle.start();
    const messages = Array.from({ length: k }, () => this.#message());
    const t0 = performance.now();
    for (const m of messages) await this.session.appendMessage(m);
    return { inObjectMs: performance.now() - t0, ids: messages.map((m) => m.id) };
  }

  /**
   * Deletes what a timed run appended. A delete drops Sessions' in-memory tail cache, and
   * re-deriving it is a scan (`ORDER BY seq DESC` over a table with no index on seq): prime
   * it here, untimed, so the next batch meets the peer in its steady state.
   */
  async truncate(ids: string[]): Promise<number> {
    await this.session.deleteMessages(ids);
    await this.session.getLatestLeaf();
    return this.count();
  }

  async storedBytes(): Promise<number> {
    await this.lifecycle.start();
    const row = this.ctx.storage.sql
      .exec<{ b: number }>("SELECT LENGTH(content) AS b FROM cf_agents_session_messages ORDER BY seq DESC LIMIT 1")
      .toArray()[0];
    return row?.b ?? 0;
  }
}

// ------------------------------------------------------------------------------------------
// (c) @cloudflare/ai-chat: AIChatAgent.persistMessages with the whole transcript, as it runs

export class BenchChat extends AIChatAgent<BenchEnv> {
  #next = 0;

  override async onChatMessage(): Promise<Response> {
    return new Response("bench: no model", { status: 500 });
  }

  async empty(): Promise<null> {
    return null;
  }

  async count(): Promise<number> {
    return this.messages.length;
  }

  /** Pre-fills to `n` messages in one persist (not timed). */
  async fill(n: number): Promise<number> {
    const more = Array.from({ length: Math.max(0, n - this.messages.length) }, () => this.#message());
    if (more.length > 0) await this.persistMessages([...this.messages, ...more]);
    return this.messages.length;
  }

  #message() {
    const i = this.#next++;
    return peerMessage(`c_${Date.now().toString(36)}_${i}`, i);
  }

  /** `k` turns' worth of persists: each call hands over the whole transcript plus one message. */
  async persistOne(k: number) {
    const t0 = performance.now();
    for (let i = 0; i < k; i++) await this.persistMessages([...this.messages, this.#message()]);
    return { inObjectMs: performance.now() - t0, count: this.messages.length };
  }

  /** Back to `n` messages (drops the newest). */
  async truncate(n: number): Promise<number> {
    if (this.messages.length > n) await this.persistMessages(this.messages.slice(0, n), [], { _deleteStaleRows: true });
    return this.messages.length;
  }
}
