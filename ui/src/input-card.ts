/**
 * The question a tool's server asks during a call (docs/API.md#questions-from-mcp-servers), as a
 * form in the tool's card: a field per property of the question's schema (a checkbox for a
 * boolean, a number box, a list for a choice, else a text box), or, for a URL question, the link
 * to open. Accept sends the fields; decline and cancel send none.
 */
import { html, nothing, type TemplateResult } from "lit";
import type { TranscriptItem } from "../../src/client";
import { formDefaults } from "../../src/tools/mcp/questions";

type Question = NonNullable<Extract<TranscriptItem, { kind: "tool" }>["input"]>;
type Field = {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  oneOf?: { const?: unknown; title?: string }[];
};
export type InputAction = "accept" | "decline" | "cancel";
export type SendAnswer = (requestId: string, action: InputAction, content?: Record<string, unknown>) => void;

function fieldsOf(q: Question): [string, Field][] {
  const props = (q.schema as { properties?: Record<string, Field> } | undefined)?.properties ?? {};
  return Object.entries(props);
}

function choices(f: Field): { value: string; label: string }[] | null {
  if (Array.isArray(f.enum)) return f.enum.map((v) => ({ value: String(v), label: String(v) }));
  if (Array.isArray(f.oneOf))
    return f.oneOf.map((o) => ({ value: String(o.const), label: o.title ?? String(o.const) }));
  return null;
}

/** One field, filled with the server's default (SEP-1034) when it gave one. */
function input(name: string, f: Field, required: boolean, initial: unknown): TemplateResult {
  const list = choices(f);
  const value = initial === undefined ? "" : String(initial);
  if (f.type === "boolean") return html`<input type="checkbox" name=${name} .checked=${initial === true} />`;
  if (list)
    return html`<select name=${name} ?required=${required}>
      ${list.map((c) => html`<option value=${c.value} ?selected=${c.value === value}>${c.label}</option>`)}
    </select>`;
  if (f.type === "number" || f.type === "integer")
    return html`<input type="number" name=${name} step=${f.type === "integer" ? "1" : "any"} .value=${value} ?required=${required} />`;
  return html`<input type="text" name=${name} .value=${value} ?required=${required} />`;
}

/** The form's values as the schema types them (a box left empty is left out). */
function contentOf(form: HTMLFormElement, q: Question): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, f] of fieldsOf(q)) {
    const el = form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | null;
    if (!el) continue;
    if (f.type === "boolean") out[name] = (el as HTMLInputElement).checked;
    else if (el.value === "") continue;
    else if (f.type === "number" || f.type === "integer") out[name] = Number(el.value);
    else out[name] = el.value;
  }
  return out;
}

export function inputCard(q: Question, send: SendAnswer): TemplateResult {
  const required = new Set((q.schema as { required?: string[] } | undefined)?.required ?? []);
  const defaults = formDefaults(q.schema);
  const submit = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    send(q.requestId, "accept", q.url !== undefined ? undefined : contentOf(form, q));
  };
  return html`<form class="input-card" aria-label=${`Question from ${q.server}`} @submit=${submit}>
    <p class="question"><span class="badge source">${q.server}</span> ${q.message}</p>
    ${
      q.url !== undefined
        ? html`<p><a href=${q.url} target="_blank" rel="noopener noreferrer">${q.url}</a></p>`
        : fieldsOf(q).map(
            ([name, f]) => html`<label class="field"
              >${f.title ?? name}${required.has(name) ? " *" : ""} ${input(name, f, required.has(name), defaults[name])}
              ${f.description ? html`<span class="muted">${f.description}</span>` : nothing}</label
            >`,
          )
    }
    <div class="approval" role="group">
      <button type="submit">${q.url !== undefined ? "Done" : "Send"}</button>
      <button type="button" @click=${() => send(q.requestId, "decline")}>Decline</button>
      <button type="button" class="danger" @click=${() => send(q.requestId, "cancel")}>Cancel</button>
    </div>
  </form>`;
}
