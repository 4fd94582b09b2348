// The Restate peer of `npm run bench` (bench/lib/restate.ts starts it): one service whose handler
// does `n` durable steps, each a `ctx.run` of a no-op side effect. Every `ctx.run` completes
// only once restate-server has acknowledged its journal entry. Node 20 lacks
// `Promise.withResolvers`, which the SDK 1.17 calls: polyfilled here, before the SDK loads.
if (typeof Promise.withResolvers !== "function") {
  Promise.withResolvers = function withResolvers() {
    let resolve;
    let reject;
    const promise = new this((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}
const restate = await import("@restatedev/restate-sdk");

const port = Number(process.argv[2]);
const bench = restate.service({
  name: "bench",
  handlers: {
    /** `n` durable no-op steps; the gaps between them, measured here (ns, hrtime). */
    steps: async (ctx, n) => {
      const gaps = [];
      let last = process.hrtime.bigint();
      for (let i = 0; i < n; i++) {
        await ctx.run(`step-${i}`, () => i);
        const now = process.hrtime.bigint();
        gaps.push(Number(now - last));
        last = now;
      }
      return { n, gaps };
    },
  },
});
await restate.serve({ services: [bench], port });
process.stdout.write(`listening ${port}\n`);
