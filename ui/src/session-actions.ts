/**
 * What a session page's elements do to the session: send, stop, resume, decide, dismiss. Each
 * goes over the socket when it is open, else over HTTP with the same idempotency key, and
 * reports a problem in words through `report`.
 */
import {
  type Connection,
  type HighwaterClient,
  HighwaterError,
  type Session,
  type SessionWait,
} from "../../src/client";
import { errorText } from "./format";
import { download, randomKey } from "./shell";

export type SessionHost = {
  readonly client: HighwaterClient;
  readonly id: string;
  readonly conn: Connection | null;
  setSession(s: Session): void;
  /** Shows a problem; a 401 goes to the shell instead. */
  report(prefix: string, err: unknown): void;
};

/** Sends over the socket when it is open, else over HTTP (same idempotency key either way). */
async function viaSocket<T>(socket: () => Promise<T> | undefined, http: () => Promise<T>): Promise<T> {
  try {
    const p = socket();
    if (p) return await p;
  } catch (err) {
    if (!(err instanceof HighwaterError && err.code === "disconnected")) throw err;
  }
  return http();
}

export class SessionActions {
  constructor(readonly host: SessionHost) {}

  /** Resolves true once the message is accepted. */
  async send(text: string): Promise<boolean> {
    const { client, id } = this.host;
    const key = randomKey();
    try {
      await viaSocket(
        () => this.host.conn?.send({ type: "message", text, idempotencyKey: key }),
        () => client.sendMessage(id, text, key),
      );
      return true;
    } catch (err) {
      this.host.report("Not sent", err);
      return false;
    }
  }

  async stop(): Promise<void> {
    const { client, id } = this.host;
    try {
      this.host.setSession(
        await viaSocket(
          () => this.host.conn?.send({ type: "stop" }),
          () => client.stop(id),
        ),
      );
    } catch (err) {
      this.host.report("Stop failed", err);
    }
  }

  async resume(wait: SessionWait, text: string): Promise<boolean> {
    try {
      await this.host.client.resume(this.host.id, wait.runId, { waitId: wait.waitId, ...(text ? { text } : {}) });
      return true;
    } catch (err) {
      this.host.report("Resume failed", err);
      return false;
    }
  }

  /** A decision bound to the arguments the card displayed (docs/API.md#approvals-bound-to-their-arguments). */
  async decide(requestId: string, decision: "approve" | "reject", argsDigest: string): Promise<void> {
    const { client, id } = this.host;
    try {
      this.host.setSession(
        await viaSocket(
          () => this.host.conn?.send({ type: "approval", requestId, decision, argsDigest }),
          () => client.decideApproval(id, requestId, decision, { argsDigest }),
        ),
      );
    } catch (err) {
      if (err instanceof HighwaterError && err.status === 409)
        this.host.report("Not decided", new Error(`${err.message}. Reload to review the call again.`));
      else this.host.report("Decision failed", err);
    }
  }

  /** An answer to a question of a tool's server (docs/API.md#questions-from-mcp-servers). */
  async answerInput(
    requestId: string,
    action: "accept" | "decline" | "cancel",
    content?: Record<string, unknown>,
  ): Promise<void> {
    const { client, id } = this.host;
    try {
      this.host.setSession(await client.answerInput(id, requestId, { action, ...(content ? { content } : {}) }));
    } catch (err) {
      this.host.report("Answer not sent", err);
    }
  }

  async dismiss(atSeq: number): Promise<void> {
    const { client, id } = this.host;
    try {
      this.host.setSession(await client.dismissRecoveryNotice(id, atSeq));
    } catch (err) {
      // 409: someone else dismissed it (or a newer notice replaced it); the session tells which.
      if (err instanceof HighwaterError && err.status === 409) this.host.setSession(await client.getSession(id));
      else this.host.report("Dismiss failed", err);
    }
  }
}

/** Fetches a turn's trace with the token and saves it as JSON (docs/API.md#traces). */
export async function downloadTrace(host: SessionHost, turnId: string): Promise<void> {
  try {
    const text = await host.client.trace(host.id, turnId);
    download(`highwater-trace-${host.id.slice(0, 12)}-${turnId.slice(0, 16)}.json`, "application/json", text);
  } catch (err) {
    host.report(
      "Trace not saved",
      err instanceof HighwaterError && err.status === 404 ? new Error("this server has no trace for that turn") : err,
    );
  }
}

export function problemText(prefix: string, err: unknown): string {
  return `${prefix}: ${err instanceof HighwaterError ? errorText(err) : err instanceof Error ? err.message : String(err)}`;
}
