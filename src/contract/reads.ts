/** Pages and small resources the read routes answer. */
import type { Event } from "./event";
import type { NeutralMessage } from "./model";
import type { Session } from "./session";
import type { TranscriptItem } from "./transcript";

/** The checkpoint as `GET /context` shows it. */
export type CheckpointView = { id: string; throughSeq: number; sourceDigest: string; summary: string };

/** `GET /context`: what the next model call receives. */
export type ContextView = {
  contextWindow: number;
  maxOutputTokens: number;
  threshold: number;
  estimatedTokens: number;
  checkpoint: CheckpointView | null;
  rawFromSeq: number;
  messages: NeutralMessage[];
};

export type VerifyResult = { ok: boolean; highWater: number; headDigest: string; problems: string[] };
export type EventsPage = { events: Event[]; highWater: number; headDigest: string };
export type SessionList = { sessions: Session[]; next?: string };
export type FileEntry = { path: string; bytes: number; updatedAt: string };
export type TranscriptPage = { items: TranscriptItem[]; next?: number };
export type FilesPage = { files: FileEntry[]; next?: string };
export type ProviderInfo = { name: string; isDefault: boolean; defaultModel: string; demo: boolean };
export type Ticket = { ticket: string; expiresAt: string };
export type Accepted = { turnId: string; seq: number };
