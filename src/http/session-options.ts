/** What a session is created and patched with (docs/API.md#sessions), checked at the edge. */
import { z } from "zod";
import { MEMORY_MODES } from "../contract/memory";
import { JURISDICTIONS } from "../contract/session";
import { SKILL_NAME } from "../contract/skills";
import { PROVIDERS } from "../model/types";

const ModelOptions = z.strictObject({
  provider: z.enum(PROVIDERS).optional(),
  name: z.string().min(1).max(200).optional(),
  contextWindow: z.number().int().min(1024).max(10_000_000).optional(),
  maxOutputTokens: z.number().int().min(1).max(1_000_000).optional(),
});

export const ApprovalRule = z.strictObject({
  tool: z.string().min(1).max(100),
  match: z.record(z.string(), z.array(z.string().max(1000)).max(100)).optional(),
});

/** docs/API.md §7.24: the location hints a session may ask for; anything else is 400. */
export const LOCATION_HINTS = ["wnam", "enam", "sam", "weur", "eeur", "apac", "oc", "afr", "me"] as const;
export type Jurisdiction = (typeof JURISDICTIONS)[number];

export const SessionOptions = z.strictObject({
  title: z.string().max(500).optional(),
  system: z.string().max(65_536).optional(),
  model: ModelOptions.optional(),
  tools: z.array(z.string().min(1).max(100)).max(100).optional(),
  skills: z
    .array(z.string().regex(SKILL_NAME, "a skill name: 1–64 of a-z, 0-9 and -"))
    .max(100)
    .refine((names) => new Set(names).size === names.length, "skills: a name is listed twice")
    .optional(),
  approvals: z.array(ApprovalRule).max(100).optional(),
  offloadThresholdBytes: z.number().int().min(256).max(524_288).optional(),
  locationHint: z.enum(LOCATION_HINTS).optional(),
  maxModelCallsPerTurn: z.number().int().min(1).max(100_000).optional(),
  jurisdiction: z.enum(JURISDICTIONS).optional(),
  memory: z.enum(MEMORY_MODES).optional(),
});

export const PatchSession = z.strictObject({
  title: z.string().max(500).nullable().optional(),
  model: ModelOptions.optional(),
  maxModelCallsPerTurn: z.number().int().min(1).max(100_000).optional(),
});
