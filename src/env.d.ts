declare module "*.sql" {
  const text: string;
  export default text;
}

/** Markdown bundled as text (wrangler.toml `[[rules]]`): a deployment's skills (docs/API.md#skills). */
declare module "*.md" {
  const text: string;
  export default text;
}
