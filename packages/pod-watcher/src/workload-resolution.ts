import type { ExternalWorkload, Pod } from "@destination/core";
import type { Cluster } from "@destination/k8s-discovery";
import { WorkloadLookupError } from "./workload-lookup-error.js";

/** What stands behind an `ip:port` at subscribe time; neither when it is a bare endpoint. */
export interface ResolvedWorkload {
  readonly pod?: Pod;
  readonly externalWorkload?: ExternalWorkload;
}

/**
 * The pod network by IP (any port), then a declared host port on that host IP, then an
 * ExternalWorkload declaring the IP and port. Two or more matches at a stage is a conflict. The
 * messages keep upstream's text, `ip:port` unbracketed even for IPv6.
 */
export function resolveWorkloadByIp(cluster: Cluster, ip: string, port: number): ResolvedWorkload {
  const onPodNetwork = readIndex(() => cluster.indexes.podsByIp(ip));
  if (onPodNetwork.length > 1) {
    throw conflict(`found ${onPodNetwork.length} pods with a conflicting pod network IP ${ip}`);
  }
  if (onPodNetwork[0]) return { pod: onPodNetwork[0] };

  const onHostNetwork = readIndex(() => cluster.indexes.podsByHostPort(ip, port));
  if (onHostNetwork.length > 1) {
    throw conflict(
      `found ${onHostNetwork.length} pods with a conflicting host network endpoint ${ip}:${port}`,
    );
  }
  if (onHostNetwork[0]) return { pod: onHostNetwork[0] };

  const external = readIndex(() => cluster.indexes.externalWorkloadsByIpPort(ip, port));
  if (external.length > 1) {
    throw conflict(
      `found ${external.length} externalworkloads with a conflicting ip ${ip}:${port}`,
    );
  }
  if (external[0]) return { externalWorkload: external[0] };
  return {};
}

function conflict(message: string): WorkloadLookupError {
  return new WorkloadLookupError("FAILED_PRECONDITION", message);
}

/** Index failures surface as UNKNOWN with the index's own text. */
function readIndex<T>(read: () => T[]): T[] {
  try {
    return read();
  } catch (err) {
    throw new WorkloadLookupError("UNKNOWN", err instanceof Error ? err.message : String(err), {
      cause: err,
    });
  }
}
