/**
 * Fork (docs/API.md §6, §7.30) as projections of a parent's log: the workspace as of any seq,
 * replayed from the file tools' calls and their `ok` outcomes, and the prefix a fork's model
 * context starts from. Pure: blob bytes are resolved by the caller.
 */
import { type Event, isBlobRef } from "../../log";
import type { NeutralMessage } from "../../model/types";

/** The workspace as a fork holds it: path → content. */
export type Workspace = Record<string, string>;

/** A fork's seq 2 (`stateDelta.forkPrefix`, kept as a `$blob`): the parent's view through `throughSeq`. */
export type ForkPrefix = {
  /** The parent's checkpoint valid at `throughSeq` (the latest one committed by then), if any. */
  checkpoint: { id: string; throughSeq: number; sourceDigest: string; summary: string } | null;
  /** The model view after the system message: the checkpoint's message, then the raw prefix. */
  messages: NeutralMessage[];
  workspace: Workspace;
};

const FILE_TOOLS = new Set(["write_file", "edit_file", "delete_file"]);

/** Mirrors `normalizeWorkspacePath` closely enough for paths the file tools already accepted. */
type Normalize = (path: string) => string | null;

/**
 * Folds file-tool outcomes into `workspace`, in log order: `write_file` sets the content from
 * its arguments, `edit_file` replays its one exact replacement on the content before it (the
 * tool answered `ok` only when `oldText` occurred exactly once, so the replay is exact; the
 * recorded `bytes` are checked), `delete_file` removes. A fork's own `forkPrefix` restarts it.
 * `calls` carries the arguments of calls seen so far whose outcome is still to come.
 */
export function foldWorkspace(
  workspace: Map<string, string>,
  calls: Map<string, { name: string; args: unknown }>,
  events: Event[],
  ctx: { normalize: Normalize; resolve: (value: unknown) => unknown; prefix: (value: unknown) => ForkPrefix | null },
): void {
  for (const e of events) {
    const c = e.content;
    const prefixRef = e.actions?.stateDelta?.forkPrefix;
    if (prefixRef !== undefined) {
      const p = ctx.prefix(prefixRef);
      if (p) {
        workspace.clear();
        for (const [path, content] of Object.entries(p.workspace)) workspace.set(path, content);
      }
    }
    if (c?.type === "functionCall" && FILE_TOOLS.has(c.name)) calls.set(c.callId, { name: c.name, args: c.args });
    if (c?.type !== "functionResponse") continue;
    const call = calls.get(c.callId);
    calls.delete(c.callId);
    if (!call || c.status !== "ok") continue;
    const args = ctx.resolve(call.args) as { path?: unknown; content?: unknown; oldText?: unknown; newText?: unknown };
    const path = typeof args?.path === "string" ? ctx.normalize(args.path) : null;
    if (path === null) continue;
    if (call.name === "write_file" && typeof args.content === "string") workspace.set(path, args.content);
    else if (call.name === "delete_file") workspace.delete(path);
    else if (call.name === "edit_file" && typeof args.oldText === "string" && typeof args.newText === "string") {
      const before = workspace.get(path);
      const at = before?.indexOf(args.oldText) ?? -1;
      if (before === undefined || at < 0)
        throw new Error(`workspace replay: edit of ${path} at seq ${e.seq} does not apply`);
      const after = before.slice(0, at) + args.newText + before.slice(at + args.oldText.length);
      const bytes = (ctx.resolve(c.response) as { bytes?: unknown })?.bytes;
      if (typeof bytes === "number" && new TextEncoder().encode(after).byteLength !== bytes)
        throw new Error(`workspace replay: edit of ${path} at seq ${e.seq} gives another size than recorded`);
      workspace.set(path, after);
    }
  }
}

/** A `$blob` resolved through `read`, else the value itself. */
export function resolveWith(read: (sha256: string) => string | null) {
  return (value: unknown): unknown => {
    if (!isBlobRef(value)) return value;
    const text = read(value.$blob.sha256);
    if (text === null) throw new Error(`blob ${value.$blob.sha256} is missing`);
    return value.$blob.mediaType.startsWith("application/json") ? JSON.parse(text) : text;
  };
}
