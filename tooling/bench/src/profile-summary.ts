/**
 * Where a server's CPU went, from a V8 CPU profile (`node --cpu-prof`): self time per package and
 * per function, within time windows (the phases of a scenario). Bundled code is mapped back to
 * its sources through the bundle's source maps, so time in `@destination/*` packages is told
 * apart from the libraries they use.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { originalPositionFor, TraceMap } from "@jridgewell/trace-mapping";

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
  readonly columnNumber: number;
}

export interface CpuProfile {
  readonly nodes: readonly { readonly id: number; readonly callFrame: CallFrame }[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** A span of the profile's clock (CLOCK_MONOTONIC, µs), named. */
export interface PhaseWindow {
  readonly name: string;
  readonly startUs: number;
  readonly endUs: number;
}

export interface Share {
  readonly name: string;
  readonly ms: number;
  readonly percent: number;
}

export interface WindowSummary {
  readonly window: string;
  /** CPU time sampled in the window, idle left out. */
  readonly ms: number;
  readonly byCategory: readonly Share[];
  readonly byFunction: readonly Share[];
}

interface Where {
  readonly category: string;
  readonly fn: string;
}

/** Each window's summary, then one of all windows together ("all phases"). */
export function summarizeCpuProfile(
  profile: CpuProfile,
  windows: readonly PhaseWindow[],
): WindowSummary[] {
  const where = new Map<number, Where | null>();
  const locate = new SourceLocator();
  for (const node of profile.nodes) where.set(node.id, classify(node.callFrame, locate));
  const perWindow = windows.map(() => ({
    cat: new Map<string, number>(),
    fn: new Map<string, number>(),
  }));
  const all = { cat: new Map<string, number>(), fn: new Map<string, number>() };
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    const w = where.get(profile.samples[i] as number);
    if (w === null || w === undefined) continue;
    // A sample stands for the time since the one before it.
    const index = windows.findIndex((win) => t >= win.startUs && t < win.endUs);
    if (index < 0) continue;
    for (const sums of [perWindow[index], all]) {
      if (sums === undefined) continue;
      sums.cat.set(w.category, (sums.cat.get(w.category) ?? 0) + delta);
      sums.fn.set(w.fn, (sums.fn.get(w.fn) ?? 0) + delta);
    }
  }
  const summary = (name: string, sums: typeof all): WindowSummary => {
    const totalUs = [...sums.cat.values()].reduce((a, b) => a + b, 0);
    const shares = (map: Map<string, number>, n: number) =>
      [...map]
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([k, us]) => ({
          name: k,
          ms: us / 1000,
          percent: totalUs > 0 ? (100 * us) / totalUs : 0,
        }));
    return {
      window: name,
      ms: totalUs / 1000,
      byCategory: shares(sums.cat, 30),
      byFunction: shares(sums.fn, 40),
    };
  };
  return [
    ...windows.map((w, i) => summary(w.name, perWindow[i] ?? { cat: new Map(), fn: new Map() })),
    summary("all phases", all),
  ];
}

/** The package (or runtime part) and function a frame belongs to; null for idle time. */
function classify(frame: CallFrame, locate: SourceLocator): Where | null {
  const { functionName, url } = frame;
  if (functionName === "(idle)" || functionName === "(root)") return null;
  if (functionName === "(garbage collector)") return { category: "GC", fn: "(garbage collector)" };
  if (functionName === "(program)") return { category: "V8 and native", fn: "(program)" };
  const name = functionName === "" ? "(anonymous)" : functionName;
  if (url === "") return { category: "V8 builtins", fn: name };
  if (url.startsWith("node:")) {
    const module = url.replace(/^node:(internal\/)?/, "").split("/")[0] ?? url;
    return { category: `node:${module}`, fn: `${name} (${url})` };
  }
  const source = locate.original(url, frame.lineNumber, frame.columnNumber) ?? url;
  return { category: packageOf(source), fn: `${name} (${shortPath(source)})` };
}

/** `@scope/name` or `name` after the last node_modules, else the workspace package of a path. */
function packageOf(path: string): string {
  const nm = path.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const parts = path.slice(nm + "node_modules/".length).split("/");
    return parts[0]?.startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] ?? path);
  }
  const workspace = /(?:^|\/)(packages|apps|tooling)\/([^/]+)\//.exec(path);
  if (workspace !== null) {
    return workspace[2] === "destination-server"
      ? "@destination/server"
      : `@destination/${workspace[2]}`;
  }
  return path;
}

function shortPath(path: string): string {
  const nm = path.lastIndexOf("node_modules/");
  if (nm >= 0) return path.slice(nm + "node_modules/".length);
  const workspace = /(?:^|\/)((?:packages|apps|tooling)\/.*)$/.exec(path);
  return workspace?.[1] ?? path;
}

/** Maps positions in bundled files back to their sources (the `.map` beside each bundle). */
class SourceLocator {
  readonly #maps = new Map<string, TraceMap | null>();

  original(url: string, line: number, column: number): string | undefined {
    const map = this.#map(url);
    if (map === null) return undefined;
    const pos = originalPositionFor(map, { line: line + 1, column: Math.max(0, column) });
    return pos.source ?? undefined;
  }

  #map(url: string): TraceMap | null {
    let map = this.#maps.get(url);
    if (map !== undefined) return map;
    map = null;
    try {
      const file = url.startsWith("file:") ? fileURLToPath(url) : url;
      if (existsSync(`${file}.map`)) {
        map = new TraceMap(readFileSync(`${file}.map`, "utf8"), url);
      }
    } catch {
      map = null;
    }
    this.#maps.set(url, map);
    return map;
  }
}
