// The destination-server binary (apps/destination-server/bin), started the way the chart's
// container starts it: the container's args, then loopback ports, JSON logs and a kubeconfig,
// with HOSTNAME set as a pod has it (the ExternalWorkload controller's Lease names the replica
// by it). The integration suite's launcher does the starting.
import { type SpawnedServer, spawnServer } from "@destination/integration/binary";

export type RunningServer = SpawnedServer;

/** Resolves once the server logs `ready`; rejects with its output if it exits first. */
export function startDestinationServer(
  containerArgs: readonly string[],
  kubeconfigPath: string,
  podName: string,
): Promise<RunningServer> {
  return spawnServer([...containerArgs, `-kubeconfig=${kubeconfigPath}`], { hostname: podName });
}
