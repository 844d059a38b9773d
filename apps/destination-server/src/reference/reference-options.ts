// The server options that shape what a Get or GetProfile answers, read from a server command
// line by the binary's own parser: a reference (`dst audit`) run with them answers as the audited
// server does. Every other flag (addresses, the source, logging, limits, timeouts) is parsed and
// validated the same way, then left out: it does not change an answer.

import type { NamespacedName } from "@destination/core";
import { createKubeCluster } from "@destination/k8s-discovery";
import { parseCommandLine } from "../config/flag-options.js";
import type { ServerLogger } from "../logging/server-logger.js";
import type { DestinationServerOptions } from "../server-options.js";

/** The options that change answers, as the translators and watchers read them. */
export type ReferenceOptions = Pick<
  DestinationServerOptions,
  | "controllerNamespace"
  | "identityTrustDomain"
  | "clusterDomain"
  | "forceOpaqueTransport"
  | "enableH2Upgrade"
  | "enableEndpointSlices"
  | "enableIpv6"
  | "defaultOpaquePorts"
  | "meshedHttp2ClientParams"
  | "extEndpointZoneWeights"
>;

/**
 * The answer-shaping options of a `destination-server` command line (upstream's verbatim form
 * too: a leading `destination`, the flags it accepts and ignores). Throws the binary's own
 * FlagError or ConfigError for a command line it would refuse to start with.
 */
export async function referenceOptionsFromArgs(
  args: readonly string[],
  logger: ServerLogger,
): Promise<ReferenceOptions> {
  const options = await parseCommandLine(args, {}).options(logger);
  return {
    controllerNamespace: options.controllerNamespace,
    identityTrustDomain: options.identityTrustDomain,
    clusterDomain: options.clusterDomain,
    forceOpaqueTransport: options.forceOpaqueTransport,
    enableH2Upgrade: options.enableH2Upgrade,
    enableEndpointSlices: options.enableEndpointSlices,
    enableIpv6: options.enableIpv6,
    defaultOpaquePorts: options.defaultOpaquePorts,
    ...(options.meshedHttp2ClientParams !== undefined
      ? { meshedHttp2ClientParams: options.meshedHttp2ClientParams }
      : {}),
    extEndpointZoneWeights: options.extEndpointZoneWeights,
  };
}

// The command line a destination server runs with in a cluster: the `args` of the `destination`
// container of its Deployment, read from the API server (`dst audit --server-args-from`). Only
// args: upstream's chart and this repository's manifests pass every flag there.

/** The container that runs the destination server in upstream's `linkerd-destination`. */
const DESTINATION_CONTAINER = "destination";

interface DeploymentLike {
  readonly spec?: {
    readonly template?: {
      readonly spec?: {
        readonly containers?: readonly { readonly name?: string; readonly args?: string[] }[];
      };
    };
  };
}

/**
 * The `destination` container's args of Deployment `ref`, from the cluster of `kubeconfig`
 * (default resolution, as the server's). Rejects with the API server's error (a KubeApiError),
 * or when the Deployment has no `destination` container.
 */
export async function readDeploymentArgs(
  source: { readonly kubeconfig?: string | undefined; readonly kubeContext?: string | undefined },
  ref: NamespacedName,
): Promise<string[]> {
  // Not started: no caches, only its API client.
  const cluster = await createKubeCluster({
    ...(source.kubeconfig !== undefined ? { kubeconfigPath: source.kubeconfig } : {}),
    ...(source.kubeContext !== undefined ? { context: source.kubeContext } : {}),
    enableEndpointSlices: true,
  });
  try {
    const path = `/apis/apps/v1/namespaces/${encodeURIComponent(ref.namespace)}/deployments/${encodeURIComponent(ref.name)}`;
    const deployment = await cluster.api.json<DeploymentLike>({ path, timeoutMs: 30_000 });
    const containers = deployment.spec?.template?.spec?.containers ?? [];
    const container = containers.find((c) => c.name === DESTINATION_CONTAINER);
    if (container === undefined) {
      const names = containers.map((c) => c.name).join(", ") || "none";
      throw new Error(
        `Deployment ${ref.namespace}/${ref.name} has no container named ${DESTINATION_CONTAINER} (it has ${names})`,
      );
    }
    return [...(container.args ?? [])];
  } finally {
    await cluster.stop();
  }
}
