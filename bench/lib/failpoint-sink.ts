/**
 * Failpoints (docs/design.md §5): a worker started with HW_FAILPOINT=<id> and HW_FAILPOINT_URL=<sink>
 * POSTs the id (text body) to the sink at that boundary and then hangs until killed.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export type FailpointSink = {
  url: string;
  /** Ids received so far, in order. */
  received: string[];
  /** Resolves when `id` has been received (also if it already was). */
  waitFor(id: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
};

export async function startFailpointSink(): Promise<FailpointSink> {
  const received: string[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const id = Buffer.concat(chunks).toString("utf8").trim();
      if (id) received.push(id);
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok");
      for (const w of waiters) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/failpoint`,
    received,
    waitFor(id, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (received.includes(id)) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `failpoint ${id} not reached within ${timeoutMs} ms (received: ${received.join(", ") || "none"})`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
