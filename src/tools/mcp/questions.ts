/**
 * Questions an MCP server asks a person during a call (elicitation, docs/API.md#questions-from-mcp-servers):
 * their shape as highwater records them, a 2026-07-28 server's `input_required` round, and the
 * check of an answer against the question's schema. Pure.
 */

/** A question: a form (a flat JSON schema of primitive fields) or a URL to open. */
export type McpQuestion =
  | { mode: "form"; message: string; schema: Record<string, unknown> }
  | { mode: "url"; message: string; url: string };

/** A person's answer, as the server receives it. */
export type McpAnswer = { action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> };

/**
 * A 2026-07-28 server's answer that needs input first: its questions by the key the server gave
 * them, the input requests highwater does not offer (sampling, roots), and its opaque state.
 */
export type InputRound = {
  kind: "input_required";
  questions: { key: string; question: McpQuestion }[];
  unsupported: string[];
  requestState?: string;
};

const EMPTY_FORM = { type: "object", properties: {} };

/** The question of `elicitation/create` params (form mode unless `mode: "url"`). */
export function questionOf(params: unknown): McpQuestion {
  const p = (params ?? {}) as { mode?: unknown; message?: unknown; url?: unknown; requestedSchema?: unknown };
  const message = typeof p.message === "string" ? p.message : "";
  if (p.mode === "url" && typeof p.url === "string") return { mode: "url", message, url: p.url };
  const schema =
    p.requestedSchema && typeof p.requestedSchema === "object"
      ? (p.requestedSchema as Record<string, unknown>)
      : EMPTY_FORM;
  return { mode: "form", message, schema };
}

/** The round of questions in a `tools/call` answer, or `null` for a complete result. */
export function inputRoundOf(answer: unknown): InputRound | null {
  const a = answer as { resultType?: unknown; inputRequests?: unknown; requestState?: unknown } | null;
  if (a?.resultType !== "input_required") return null;
  const round: InputRound = { kind: "input_required", questions: [], unsupported: [] };
  if (typeof a.requestState === "string") round.requestState = a.requestState;
  const requests = a.inputRequests && typeof a.inputRequests === "object" ? a.inputRequests : {};
  for (const [key, req] of Object.entries(requests as Record<string, { method?: unknown; params?: unknown }>)) {
    if (req?.method === "elicitation/create") round.questions.push({ key, question: questionOf(req.params) });
    else round.unsupported.push(`${key}: ${String(req?.method)}`);
  }
  return round;
}

type Field = {
  type?: unknown;
  enum?: unknown;
  oneOf?: unknown;
  items?: unknown;
  minLength?: unknown;
  maxLength?: unknown;
  minimum?: unknown;
  maximum?: unknown;
  format?: unknown;
  minItems?: unknown;
  maxItems?: unknown;
};

/** The values a single-select or multi-select field allows, if it lists them. */
function allowed(field: Field): unknown[] | null {
  if (Array.isArray(field.enum)) return field.enum;
  if (Array.isArray(field.oneOf)) return field.oneOf.map((o) => (o as { const?: unknown })?.const);
  return null;
}

function fieldIssue(name: string, field: Field, value: unknown): string | null {
  const num = (v: unknown) => (typeof v === "number" ? v : null);
  switch (field.type) {
    case "string": {
      if (typeof value !== "string") return `${name} must be a string`;
      const min = num(field.minLength);
      const max = num(field.maxLength);
      if (min !== null && value.length < min) return `${name} must be at least ${min} characters`;
      if (max !== null && value.length > max) return `${name} must be at most ${max} characters`;
      if (field.format === "email" && !/^[^@\s]+@[^@\s]+$/.test(value)) return `${name} must be an email address`;
      if (field.format === "uri" && !URL.canParse(value)) return `${name} must be a URI`;
      if (field.format === "date" && !/^\d{4}-\d{2}-\d{2}$/.test(value)) return `${name} must be a date (YYYY-MM-DD)`;
      if (field.format === "date-time" && Number.isNaN(Date.parse(value))) return `${name} must be a date-time`;
      const values = allowed(field);
      if (values && !values.includes(value)) return `${name} must be one of ${values.join(", ")}`;
      return null;
    }
    case "number":
    case "integer": {
      if (typeof value !== "number" || !Number.isFinite(value)) return `${name} must be a number`;
      if (field.type === "integer" && !Number.isInteger(value)) return `${name} must be an integer`;
      const min = num(field.minimum);
      const max = num(field.maximum);
      if (min !== null && value < min) return `${name} must be at least ${min}`;
      if (max !== null && value > max) return `${name} must be at most ${max}`;
      return null;
    }
    case "boolean":
      return typeof value === "boolean" ? null : `${name} must be true or false`;
    case "array": {
      if (!Array.isArray(value)) return `${name} must be an array`;
      const values = allowed((field.items ?? {}) as Field) ?? (Array.isArray(field.enum) ? field.enum : null);
      if (values && value.some((v) => !values.includes(v))) return `${name} items must be among ${values.join(", ")}`;
      const min = num(field.minItems);
      const max = num(field.maxItems);
      if (min !== null && value.length < min) return `${name} must have at least ${min} items`;
      if (max !== null && value.length > max) return `${name} must have at most ${max} items`;
      return null;
    }
    default:
      return null;
  }
}

/**
 * Why an answer does not fit its question (empty: it fits). `accept` of a form needs content that
 * matches the form's schema (required fields present, each field of its type and bounds, no
 * field the form does not have); `decline` and `cancel` carry no content; a URL question's
 * `accept` carries none either.
 */
export function answerIssues(question: McpQuestion, answer: McpAnswer): string[] {
  if (answer.action !== "accept" || question.mode === "url")
    return answer.content === undefined ? [] : [`content goes only with "accept" of a form`];
  const content = answer.content;
  if (!content || typeof content !== "object" || Array.isArray(content)) return ["content must be an object"];
  const schema = question.schema as { properties?: unknown; required?: unknown };
  const props = (schema.properties && typeof schema.properties === "object" ? schema.properties : {}) as Record<
    string,
    Field
  >;
  const issues: string[] = [];
  for (const name of Array.isArray(schema.required) ? schema.required : [])
    if (typeof name === "string" && !Object.hasOwn(content, name)) issues.push(`${name} is required`);
  for (const [name, value] of Object.entries(content)) {
    const field = props[name];
    if (!field) {
      issues.push(`${name} is not a field of this form`);
      continue;
    }
    const issue = fieldIssue(name, field, value);
    if (issue) issues.push(issue);
  }
  return issues;
}

/**
 * The content a form starts with: each field's `default` (SEP-1034), so a person who changes
 * nothing sends what the server proposed. The console fills its form with it.
 */
export function formDefaults(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  const props = (schema?.properties ?? {}) as Record<string, { default?: unknown }>;
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(props))
    if (field && typeof field === "object" && field.default !== undefined) out[name] = field.default;
  return out;
}
