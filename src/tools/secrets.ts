/**
 * Secrets by reference (docs/API.md#secrets): configuration holds `{{secret:NAME}}`, never the
 * value; the value is put in at call time.
 */

/** Any `{{secret:…}}` reference, well-formed or not (a malformed one is a refused use, never sent as text). */
const SECRET_REF = /\{\{secret:([^{}]*)\}\}/g;
/** The names a reference may hold: those of Worker vars and secrets. */
const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * Replaces each `{{secret:NAME}}` in `text` by `lookup(NAME)`; the first name that is malformed
 * or that `lookup` does not give is returned instead, and nothing is replaced.
 */
export function substituteSecrets(
  text: string,
  lookup: (name: string) => string | undefined,
): { ok: true; text: string } | { ok: false; name: string } {
  for (const m of text.matchAll(SECRET_REF)) {
    const name = m[1] ?? "";
    if (!SECRET_NAME.test(name) || lookup(name) === undefined) return { ok: false, name };
  }
  return { ok: true, text: text.replace(SECRET_REF, (_m, name: string) => lookup(name) as string) };
}
