/**
 * `npm run bench -- <name>`: each bench prints its figures next to a baseline measured in the
 * same process, so that ratios stay meaningful on any machine.
 */

const benches: Record<string, () => Promise<{ run(args: string[]): Promise<void> }>> = {
  policy: () => import("./policy.js"),
  calls: () => import("./calls.js"),
  sandbox: () => import("./sandbox-latency.js"),
  fairness: () => import("./fairness.js"),
  quota: () => import("./quota.js"),
  runtime: () => import("./runtime.js"),
  flood: () => import("./flood.js"),
  cluster: () => import("./cluster.js"),
  lists: () => import("./lists.js"),
  warm: () => import("./warm.js"),
  cost: () => import("./call-cost.js"),
  container: () => import("./container-cpu.js"),
  prune: () => import("./prune.js"),
  hops: () => import("./hops.js"),
  reconcile: () => import("./webhook-reconcile.js"),
};

async function main(): Promise<void> {
  const [name = "", ...rest] = process.argv.slice(2);
  const load = benches[name];
  if (!load) {
    process.stderr.write(`usage: npm run bench -- <${Object.keys(benches).join("|")}>\n`);
    process.exitCode = 2;
    return;
  }
  const bench = await load();
  await bench.run(rest);
}

await main();
