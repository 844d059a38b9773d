import type { NamespacedName, Service } from "@destination/core";

import {
  REMOTE_DISCOVERY_LABEL,
  REMOTE_SERVICE_LABEL,
  type RemoteCluster,
} from "@destination/multicluster";

import { status as Status } from "@grpc/grpc-js";

import type { GetRoute } from "../request/request-routes.js";
import type { DestinationContext } from "./destination-context.js";

import { StatusError } from "./status-error.js";

/** Where a remote-discovery Get goes (README "Remote discovery flow"). */
export interface RemoteTarget {
  readonly remote: RemoteCluster;
  /** The remote Service: the label's name, in the local Service's namespace. */
  readonly service: NamespacedName;
  /** The `service` label of the overflow counter. */
  readonly overflowLabel: string;
}

/** The remote target of a Service labelled for remote discovery, or undefined for others. */
export function remoteTarget(
  ctx: DestinationContext,
  service: Service,
  route: GetRoute,
  path: string,
): RemoteTarget | undefined {
  const labels = service.metadata.labels ?? {};
  const clusterName = labels[REMOTE_DISCOVERY_LABEL];
  if (clusterName === undefined) return undefined;
  const remoteName = labels[REMOTE_SERVICE_LABEL];
  if (remoteName === undefined) {
    throw new StatusError(
      Status.FAILED_PRECONDITION,
      `Remote discovery service missing remote service name ${path}`,
    );
  }
  const remote = ctx.clusterStore.get(clusterName);
  if (remote === undefined) {
    throw new StatusError(Status.NOT_FOUND, `Remote cluster not found: ${clusterName}`);
  }
  const { namespace } = route.service;
  return {
    remote,
    service: { namespace, name: remoteName },
    overflowLabel: `${remoteName}.${namespace}.svc.${remote.clusterDomain}:${route.port}`,
  };
}
