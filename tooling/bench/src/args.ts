/** The bench's command line and the plan it resolves to. */

/** Kept here (not imported from experiments.ts) so that parsing stays free of server code. */
export const EXPERIMENT_NAMES = ["lean-delivery"] as const;

export const SCENARIOS = [
  "fanout",
  "scale",
  "churn",
  "storm",
  "cluster",
  "churn-mix",
  "scale-curve",
  "audit",
  "reconnect-storm",
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];
/**
 * `cluster`, `churn-mix`, `scale-curve`, `audit` and `reconnect-storm` need a real API server (built on first use),
 * so they run only when asked for.
 */
export const DEFAULT_SCENARIOS: readonly ScenarioName[] = ["fanout", "scale", "churn", "storm"];

export interface BenchArgs {
  readonly quick: boolean;
  readonly json: string | undefined;
  readonly runs: number | undefined;
  readonly only: readonly ScenarioName[];
  readonly churnSeconds: number | undefined;
  /** Run every server child with `--cpu-prof`, profiles written to this folder. */
  readonly cpuProf: string | undefined;
  /** Write a heap snapshot of each scale server (largest size only) to this folder. */
  readonly heapSnapshot: string | undefined;
  /** Overrides of the sizes (stream counts, pod counts). */
  readonly fanoutStreams: readonly number[] | undefined;
  readonly stormStreams: readonly number[] | undefined;
  readonly scalePods: readonly number[] | undefined;
  readonly clusterPods: number | undefined;
  readonly scaleCurvePods: readonly number[] | undefined;
  readonly auditPods: readonly number[] | undefined;
  readonly stormProxies: readonly number[] | undefined;
  /** Runtime patches of the server child that model a proposed change (experiments.ts). */
  readonly experiments: readonly string[];
  /** Flags added to our server's command line in the cluster-mode scenarios. */
  readonly oursFlags: readonly string[];
  readonly help: boolean;
}

export class ArgsError extends Error {
  override readonly name = "ArgsError";
}

export const USAGE = `usage: pnpm bench [--quick] [--json FILE] [--runs N] [--only LIST]
                  [--churn-seconds N] [--cpu-prof DIR] [--heap-snapshot DIR]

  --quick             smoke check: smaller sizes, fewer runs (under a minute)
  --json FILE         also write the results as JSON
  --runs N            repetitions per measurement (default 5, 2 with --quick)
  --only LIST         comma-separated scenarios: ${SCENARIOS.join(",")}
                      (default: all but cluster, churn-mix, scale-curve, audit and
                      reconnect-storm)
  --churn-seconds N   churn duration (default 30, 5 with --quick)
  --cpu-prof DIR      run the server children with --cpu-prof into DIR
  --heap-snapshot DIR write a heap snapshot of the largest scale server into DIR
  --fanout-streams L  fan-out stream counts (default 1000,10000; 1000 with --quick)
  --storm-streams L   subscribe-storm stream counts (default 1000,10000; 1000 with --quick)
  --scale-pods L      scale pod counts (default 1000,10000,50000; 1000,10000 with --quick)
  --cluster-pods N    pods of the cluster and churn-mix scenarios (default 10000, 2000
                      with --quick)
  --scale-curve-pods L  scale-curve sizes (default 1000,10000,50000; 1000,2000 with --quick)
  --audit-pods L      audit sizes (default 1000,10000,50000; 500 with --quick)
  --storm-proxies L   reconnect-storm proxy counts (default 1000,10000; 200 with --quick)
  --ours-flag F       add F to our server's command line in cluster mode (repeatable), e.g.
                      --ours-flag=-grpc-serving-thread (results are labelled with it)
  --experiment L      patch the server child at run time to measure a proposed change:
                      ${EXPERIMENT_NAMES.join(", ")} (results are labelled with it)
`;

function positiveInt(flag: string, text: string | undefined): number {
  if (text === undefined) throw new ArgsError(`${flag} needs a value`);
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1)
    throw new ArgsError(`${flag}: not a positive integer: ${text}`);
  return n;
}

function intList(flag: string, text: string | undefined): number[] {
  return value(flag, text)
    .split(",")
    .map((part) => positiveInt(flag, part.trim()));
}

function value(flag: string, text: string | undefined): string {
  if (text === undefined || text === "") throw new ArgsError(`${flag} needs a value`);
  return text;
}

/** Parses `argv` (without node and the script). Accepts `--flag value` and `--flag=value`. */
export function parseArgs(argv: readonly string[]): BenchArgs {
  const args = {
    quick: false,
    json: undefined as string | undefined,
    runs: undefined as number | undefined,
    only: [...DEFAULT_SCENARIOS] as ScenarioName[],
    churnSeconds: undefined as number | undefined,
    cpuProf: undefined as string | undefined,
    heapSnapshot: undefined as string | undefined,
    fanoutStreams: undefined as number[] | undefined,
    stormStreams: undefined as number[] | undefined,
    scalePods: undefined as number[] | undefined,
    clusterPods: undefined as number | undefined,
    scaleCurvePods: undefined as number[] | undefined,
    auditPods: undefined as number[] | undefined,
    stormProxies: undefined as number[] | undefined,
    experiments: [] as string[],
    oursFlags: [] as string[],
    help: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i] as string;
    // `pnpm bench -- --quick` passes a literal "--" through.
    if (raw === "--") continue;
    const eq = raw.startsWith("--") ? raw.indexOf("=") : -1;
    const flag = eq >= 0 ? raw.slice(0, eq) : raw;
    const inline = eq >= 0 ? raw.slice(eq + 1) : undefined;
    const next = (): string | undefined => inline ?? argv[++i];
    switch (flag) {
      case "--quick":
        args.quick = true;
        break;
      case "--help":
      case "-h":
        args.help = true;
        break;
      case "--json":
        args.json = value(flag, next());
        break;
      case "--runs":
        args.runs = positiveInt(flag, next());
        break;
      case "--churn-seconds":
        args.churnSeconds = positiveInt(flag, next());
        break;
      case "--cpu-prof":
        args.cpuProf = value(flag, next());
        break;
      case "--heap-snapshot":
        args.heapSnapshot = value(flag, next());
        break;
      case "--fanout-streams":
        args.fanoutStreams = intList(flag, next());
        break;
      case "--storm-streams":
        args.stormStreams = intList(flag, next());
        break;
      case "--scale-pods":
        args.scalePods = intList(flag, next());
        break;
      case "--cluster-pods":
        args.clusterPods = positiveInt(flag, next());
        break;
      case "--scale-curve-pods":
        args.scaleCurvePods = intList(flag, next());
        break;
      case "--audit-pods":
        args.auditPods = intList(flag, next());
        break;
      case "--storm-proxies":
        args.stormProxies = intList(flag, next());
        break;
      case "--ours-flag": {
        const f = value(flag, next());
        if (!f.startsWith("-")) throw new ArgsError(`--ours-flag: not a flag: ${f}`);
        args.oursFlags.push(f);
        break;
      }
      case "--experiment":
        for (const name of value(flag, next()).split(",")) {
          if (!(EXPERIMENT_NAMES as readonly string[]).includes(name)) {
            throw new ArgsError(`--experiment: unknown ${name} (${EXPERIMENT_NAMES.join(", ")})`);
          }
          args.experiments.push(name);
        }
        break;
      case "--only": {
        const names = value(flag, next())
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s !== "");
        for (const name of names) {
          if (!(SCENARIOS as readonly string[]).includes(name)) {
            throw new ArgsError(`--only: unknown scenario ${name} (${SCENARIOS.join(", ")})`);
          }
        }
        if (names.length === 0) throw new ArgsError("--only needs at least one scenario");
        args.only = names as ScenarioName[];
        break;
      }
      default:
        throw new ArgsError(`unknown argument: ${raw}`);
    }
  }
  return args;
}

/** Every size and count a run uses, resolved from the arguments. */
export interface BenchPlan {
  readonly quick: boolean;
  readonly experiments: readonly string[];
  readonly oursFlags: readonly string[];
  readonly scenarios: readonly ScenarioName[];
  /** Client connections (distinct grpc-js channels) the streams are spread over. */
  readonly connections: number;
  readonly fanout: {
    readonly streams: readonly number[];
    /** Measured endpoint changes per size (after `warmup` unmeasured ones). */
    readonly rounds: number;
    readonly warmup: number;
  };
  readonly scale: {
    readonly pods: readonly number[];
    readonly podsPerService: number;
    readonly runs: number;
  };
  readonly churn: {
    readonly seconds: number;
    readonly eventsPerSecond: number;
    readonly subscriptions: number;
    readonly services: number;
    readonly podsPerService: number;
    readonly datasetServices: number;
  };
  readonly storm: {
    readonly streams: readonly number[];
    readonly services: number;
    readonly podsPerService: number;
    readonly runs: number;
  };
  /** Against a real API server, ours and (when built) upstream's, alternating passes. */
  readonly cluster: {
    readonly services: number;
    readonly podsPerService: number;
    readonly passes: number;
    readonly churnSeconds: number;
    readonly churnPerSecond: number;
    /** Get streams spread over every Service, for RSS with many streams open. */
    readonly wideStreams: number;
    /** Get streams of one Service, and the endpoint additions fanned out to them. */
    readonly fanoutStreams: number;
    readonly fanoutRounds: number;
  };
  /** CPU per kind of change, ours and upstream's on one real API server. */
  readonly churnMix: {
    readonly services: number;
    readonly podsPerService: number;
    /** Services with streams (the first ones); each phase also changes the others. */
    readonly watchedServices: number;
    /** Get streams over the watched services (and one GetProfile stream each). */
    readonly getStreams: number;
    readonly servicesPerPhase: number;
    readonly writesPerSecond: number;
    readonly passes: number;
    /**
     * Rounds of every phase per server process: the first meets a process that just started
     * (code not yet compiled, its first major GC), later ones a warm one, as a server that has
     * run a while is. Each round is reported apart.
     */
    readonly rounds: number;
  };
  /** Start, memory and first Gets from size to size, ours and upstream's on one API server. */
  readonly scaleCurve: {
    readonly pods: readonly number[];
    readonly podsPerService: number;
    readonly passes: number;
  };
  /** The self-audit's cost: one server per size, audit runs measured on a growing API server. */
  readonly audit: {
    readonly pods: readonly number[];
    readonly podsPerService: number;
    /** Runs measured per size, after one unmeasured run (the JIT is cold in the first). */
    readonly runs: number;
    /** `-audit-interval` of the server, ms (the server jitters it by ±10 %). */
    readonly intervalMs: number;
    /** GetProfile streams (and ServiceProfiles) on the first Services. */
    readonly profileStreams: number;
  };
  /** Proxies re-opening their lookups at once, against fresh servers on one real API server. */
  readonly reconnectStorm: {
    readonly services: number;
    readonly podsPerService: number;
    readonly proxies: readonly number[];
    readonly passes: number;
    /** Every proxy calls within this window after the first. */
    readonly windowMs: number;
    /** New connections the proxies are spread over (a proxy each, up to this many). */
    readonly connections: number;
    /** The replacement churn of the storms run under churn (the cluster scenario's rate). */
    readonly churnPerSecond: number;
  };
}

export function resolvePlan(args: BenchArgs): BenchPlan {
  const runs = args.runs ?? (args.quick ? 2 : 5);
  return {
    quick: args.quick,
    experiments: args.experiments,
    oursFlags: args.oursFlags,
    scenarios: args.only,
    connections: 100,
    fanout: {
      streams: args.fanoutStreams ?? (args.quick ? [1000] : [1000, 10_000]),
      // Each round is one sample; fan-out rounds are cheap, so take more than `runs`.
      rounds: runs * 4,
      warmup: 5,
    },
    scale: {
      pods: args.scalePods ?? (args.quick ? [1000, 10_000] : [1000, 10_000, 50_000]),
      podsPerService: 10,
      runs: args.quick ? 1 : runs,
    },
    churn: {
      seconds: args.churnSeconds ?? (args.quick ? 5 : 30),
      eventsPerSecond: 500,
      subscriptions: 1000,
      services: 200,
      podsPerService: 10,
      // The quick run keeps only the churned services, to start faster.
      datasetServices: args.quick ? 200 : 1000,
    },
    storm: {
      streams: args.stormStreams ?? (args.quick ? [1000] : [1000, 10_000]),
      services: 1000,
      podsPerService: 10,
      runs: args.quick ? (args.runs ?? 1) : runs,
    },
    cluster: {
      services: Math.ceil((args.clusterPods ?? (args.quick ? 2000 : 10_000)) / 10),
      podsPerService: 10,
      passes: args.runs ?? (args.quick ? 1 : 3),
      churnSeconds: args.churnSeconds ?? (args.quick ? 5 : 30),
      // Each replacement is four writes; about what one API server takes beside two servers.
      churnPerSecond: 20,
      wideStreams: args.quick ? 2000 : 10_000,
      fanoutStreams: args.quick ? 1000 : 10_000,
      fanoutRounds: args.quick ? 3 : 10,
    },
    churnMix: {
      services: Math.ceil((args.clusterPods ?? (args.quick ? 2000 : 10_000)) / 10),
      podsPerService: 10,
      watchedServices: args.quick ? 20 : 200,
      getStreams: args.quick ? 100 : 1000,
      servicesPerPhase: args.quick ? 4 : 20,
      writesPerSecond: 100,
      passes: args.runs ?? (args.quick ? 1 : 3),
      rounds: 2,
    },
    scaleCurve: {
      pods: args.scaleCurvePods ?? (args.quick ? [1000, 2000] : [1000, 10_000, 50_000]),
      podsPerService: 10,
      passes: args.runs ?? (args.quick ? 1 : 3),
    },
    audit: {
      pods: args.auditPods ?? (args.quick ? [500] : [1000, 10_000, 50_000]),
      podsPerService: 10,
      runs: args.runs ?? (args.quick ? 2 : 3),
      // Long enough for a 50k run and an idle window between runs; short enough to take several.
      intervalMs: args.quick ? 5000 : 10_000,
      profileStreams: args.quick ? 20 : 100,
    },
    reconnectStorm: {
      services: Math.ceil((args.clusterPods ?? (args.quick ? 2000 : 10_000)) / 10),
      podsPerService: 10,
      proxies: args.stormProxies ?? (args.quick ? [200] : [1000, 10_000]),
      passes: args.runs ?? (args.quick ? 1 : 3),
      windowMs: 1000,
      // One client process cannot hold 10k HTTP/2 connections beside two servers on two cores.
      connections: 1000,
      churnPerSecond: 20,
    },
  };
}
