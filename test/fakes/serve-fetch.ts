/** A fetch-shaped handler (an SDK's web-standard server) behind a Node HTTP server on 127.0.0.1, streaming its answers. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type Served = { url: string; close(): Promise<void> };

export async function serveFetch(routes: Record<string, (request: Request) => Promise<Response>>): Promise<Served> {
  const server: Server = createServer(async (req, res) => {
    try {
      const handler = routes[(req.url ?? "/").split("?")[0]!];
      if (!handler) return void res.writeHead(404).end();
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      const abort = new AbortController();
      res.on("close", () => abort.abort());
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method ?? "GET",
        headers,
        signal: abort.signal,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      });
      const answer = await handler(request);
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      if (!answer.body) return void res.end();
      for await (const chunk of answer.body) res.write(chunk);
      res.end();
    } catch (err) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
