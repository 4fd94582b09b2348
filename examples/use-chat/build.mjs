// Bundles the useChat example page with esbuild: `node examples/use-chat/build.mjs` writes dist/app.js.
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));

export async function buildUseChatExample() {
  await build({
    entryPoints: [`${here}app.tsx`],
    outfile: `${here}dist/app.js`,
    bundle: true,
    format: "esm",
    jsx: "automatic",
    target: "es2022",
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "warning",
  });
  return `${here}dist/app.js`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(`wrote ${await buildUseChatExample()}`);
}
