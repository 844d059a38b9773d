import { compileSelector, type LabelMatcher } from "./label-selector.js";
import type { Logger } from "./logger.js";
import type { Pod } from "./objects/core.js";
import type { ExternalWorkload, Server } from "./objects/linkerd.js";
import type { LabelSelector } from "./objects/meta.js";

// Server matching shared by the endpoints and workload watchers (README "Server opacity").

const compiled = new WeakMap<LabelSelector, LabelMatcher>();
/** Servers already reported for an invalid selector: once per object, not once per address. */
const reported = new WeakSet<Server>();

/** Compiles a selector once per object; throws InvalidSelectorError for an invalid one. */
function matcher(selector: LabelSelector | null | undefined): LabelMatcher {
  if (selector == null) return compileSelector(selector);
  let m = compiled.get(selector);
  if (m === undefined) {
    m = compileSelector(selector);
    compiled.set(selector, m);
  }
  return m;
}

export interface PodPortMatchOptions {
  /**
   * Whether a named Server port also matches a container port whose `hostPort` equals the
   * port: true when an address is built or a pod attaches, false in the Get recomputation on
   * Server events.
   */
  readonly matchHostPort: boolean;
}

/** Whether a Server selects this pod and port; throws InvalidSelectorError. Namespaces not checked. */
export function serverSelectsPod(server: Server, pod: Pod): boolean {
  return matcher(server.spec?.podSelector)(pod.metadata.labels);
}

/** Whether a Server's port (number or container port name) names this pod port. */
export function serverPortMatchesPod(
  server: Server,
  pod: Pod,
  port: number,
  options: PodPortMatchOptions,
): boolean {
  const want = server.spec?.port;
  if (typeof want === "number") return want === port;
  if (typeof want !== "string") return false;
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    for (const p of c.ports ?? []) {
      const numberMatches =
        p.containerPort === port || (options.matchHostPort && p.hostPort === port);
      if (numberMatches && p.name === want) return true;
    }
  }
  return false;
}

/**
 * Whether an opaque Server in the pod's namespace selects this pod port, computed from all
 * Servers so that one Server's event never leaves a stale flag behind. Servers with invalid
 * selectors are logged and skipped.
 */
export function podPortOpaqueByServers(
  servers: readonly Server[],
  pod: Pod,
  port: number,
  options: PodPortMatchOptions,
  logger?: Logger,
): boolean {
  // An index loop: this runs for every address a first Get converts, mostly on an empty list,
  // and before the JIT has optimised it an array iterator costs two allocations per call.
  for (let i = 0; i < servers.length; i++) {
    const server = servers[i] as Server;
    if (server.metadata.namespace !== pod.metadata.namespace) continue;
    if (server.spec?.proxyProtocol !== "opaque") continue;
    try {
      if (serverSelectsPod(server, pod) && serverPortMatchesPod(server, pod, port, options)) {
        return true;
      }
    } catch (err) {
      if (reported.has(server)) continue;
      reported.add(server);
      logger?.warn("Server with an invalid podSelector skipped", {
        server: `${server.metadata.namespace}/${server.metadata.name}`,
        error: String(err),
      });
    }
  }
  return false;
}

/** Whether a Server selects this ExternalWorkload; throws InvalidSelectorError. */
export function serverSelectsExternalWorkload(server: Server, ew: ExternalWorkload): boolean {
  return matcher(server.spec?.externalWorkloadSelector)(ew.metadata.labels);
}

/** Whether a Server's port (number or `spec.ports` name) names this ExternalWorkload port. */
export function serverPortMatchesExternalWorkload(
  server: Server,
  ew: ExternalWorkload,
  port: number,
): boolean {
  const want = server.spec?.port;
  if (typeof want === "number") return want === port;
  if (typeof want !== "string") return false;
  return (ew.spec?.ports ?? []).some((p) => p.port === port && p.name === want);
}

/**
 * Whether an opaque Server in the EW's namespace selects this EW port. Unlike pods, an invalid
 * selector is an error for the caller, as upstream: the first Server in the namespace with one,
 * opaque or not, throws InvalidSelectorError.
 */
export function externalWorkloadPortOpaqueByServers(
  servers: readonly Server[],
  ew: ExternalWorkload,
  port: number,
): boolean {
  for (const server of servers) {
    if (server.metadata.namespace !== ew.metadata.namespace) continue;
    const selected = serverSelectsExternalWorkload(server, ew);
    if (
      server.spec?.proxyProtocol === "opaque" &&
      selected &&
      serverPortMatchesExternalWorkload(server, ew, port)
    ) {
      return true;
    }
  }
  return false;
}
