/**
 * `pnpm bench`: drives the destination server (built packages, in child processes) with real
 * grpc-js clients over loopback and prints one table; `--json FILE` also writes the results.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, totalmem } from "node:os";
import { resolve } from "node:path";
import { ArgsError, parseArgs, resolvePlan, type ScenarioName, USAGE } from "./args.js";
import { benchDocument, formatTable, type ScenarioResult } from "./report.js";
import { audit } from "./scenarios/audit.js";
import { churn } from "./scenarios/churn.js";
import { churnMix } from "./scenarios/churn-mix.js";
import { cluster } from "./scenarios/cluster.js";
import type { ScenarioContext } from "./scenarios/common.js";
import { fanout } from "./scenarios/fanout.js";
import { reconnectStorm } from "./scenarios/reconnect-storm.js";
import { scale } from "./scenarios/scale.js";
import { scaleCurve } from "./scenarios/scale-curve.js";
import { subscribeStorm } from "./scenarios/storm.js";
import { setOursFlags } from "./server-process.js";

const RUNNERS: Record<
  ScenarioName,
  (plan: ReturnType<typeof resolvePlan>, ctx: ScenarioContext) => Promise<ScenarioResult[]>
> = {
  fanout,
  scale,
  churn,
  storm: subscribeStorm,
  cluster,
  "churn-mix": churnMix,
  "scale-curve": scaleCurve,
  audit,
  "reconnect-storm": reconnectStorm,
};

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(argv);
  } catch (err) {
    if (err instanceof ArgsError) {
      process.stderr.write(`bench: ${err.message}\n${USAGE}`);
      return 2;
    }
    throw err;
  }
  if (args.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const plan = resolvePlan(args);
  setOursFlags(plan.oursFlags);
  for (const dir of [args.cpuProf, args.heapSnapshot]) {
    if (dir !== undefined) mkdirSync(dir, { recursive: true });
  }
  const ctx: ScenarioContext = {
    cpuProfDir: args.cpuProf === undefined ? undefined : resolve(args.cpuProf),
    heapSnapshotDir: args.heapSnapshot === undefined ? undefined : resolve(args.heapSnapshot),
    log: (line) =>
      process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`),
  };
  const startedAt = new Date();
  const loadStart = loadavg().map((l) => Math.round(l * 100) / 100);
  const t0 = performance.now();
  const results: ScenarioResult[] = [];
  let failed = 0;
  for (const name of plan.scenarios) {
    ctx.log(`${name}…`);
    const s0 = performance.now();
    try {
      const measured = await RUNNERS[name](plan, ctx);
      // Results of patched servers, or of servers given flags, must never pass for the default.
      const label: Record<string, string> = {};
      if (plan.experiments.length > 0) label.experiment = plan.experiments.join(",");
      if (plan.oursFlags.length > 0) label.ours_flags = plan.oursFlags.join(" ");
      results.push(
        ...(Object.keys(label).length === 0
          ? measured
          : measured.map((r) => ({ ...r, params: { ...r.params, ...label } }))),
      );
    } catch (err) {
      failed++;
      ctx.log(`${name} FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    }
    ctx.log(`${name} took ${((performance.now() - s0) / 1000).toFixed(1)} s`);
  }
  process.stdout.write(`\n${formatTable(results)}`);
  const totalS = (performance.now() - t0) / 1000;
  const loadEnd = loadavg().map((l) => Math.round(l * 100) / 100);
  process.stdout.write(
    `\n${plan.quick ? "quick " : ""}bench finished in ${totalS.toFixed(1)} s ` +
      `(load average ${loadStart.join(" ")} at the start, ${loadEnd.join(" ")} at the end ` +
      `on ${availableParallelism()} cores)\n`,
  );
  if (args.json !== undefined) {
    const doc = benchDocument(results, {
      startedAt: startedAt.toISOString(),
      command: ["pnpm", "bench", ...argv.filter((a) => a !== "--")].join(" "),
      quick: plan.quick,
      machine: {
        nproc: availableParallelism(),
        cpuModel: cpus()[0]?.model ?? "unknown",
        memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
        node: process.version,
        platform: `${process.platform}-${process.arch}`,
        loadAverageStart: loadStart,
        loadAverageEnd: loadEnd,
      },
    });
    writeFileSync(args.json, `${JSON.stringify(doc, null, 2)}\n`);
    process.stdout.write(`results written to ${args.json}\n`);
  }
  return failed > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
