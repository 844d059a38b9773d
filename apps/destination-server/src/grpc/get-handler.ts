import type { NamespacedName, Service } from "@destination/core";
import { InvalidServiceError } from "@destination/core";
import {
  isFederated,
  REMOTE_DISCOVERY_LABEL,
  REMOTE_SERVICE_LABEL,
  type RemoteCluster,
} from "@destination/multicluster";
import type { GetDestination, Update } from "@destination/proto";
import { EndpointTranslator } from "@destination/translators";
import { status as Status } from "@grpc/grpc-js";
import { type HeldGet, witnessedSink } from "../audit/held-subscriptions.js";
import { LazyChildLogger } from "../logging/server-logger.js";
import { parseContextToken } from "../request/context-token.js";
import type { GetRoute } from "../request/request-routes.js";
import { externalNameService, getServiceNotFound, routeGet } from "../request/request-routes.js";
import { encodedUpdate } from "../streams/encoded-messages.js";
import type { StreamCall } from "../streams/stream-session.js";
import { StreamSession } from "../streams/stream-session.js";
import { DESTINATION_SERVICE_NAME, type DestinationContext } from "./destination-context.js";
import { type EndpointSource, subscribeSource, unsubscribeSource } from "./endpoint-source.js";
import { FederatedStream } from "./federated-stream.js";
import { StatusError } from "./status-error.js";

/** A remote stream's hold: remote clusters' caches are not audited. */
const NOT_AUDITED: HeldGet = { witness: undefined, release: () => {} };

/**
 * `Get`: route the authority, check the Service, then dispatch (README "Get dispatch"):
 * federated Services to their sources, remote-discovery ones to the linked cluster's watcher,
 * the rest to the local watcher; stream until the client leaves, the stream falls behind or the
 * server shuts down.
 */
export function handleGet(
  ctx: DestinationContext,
  call: StreamCall,
  request: GetDestination,
): void {
  const path = request.path;
  const logger = new LazyChildLogger(ctx.logger, { rpc: "Get", path });
  // A remote-discovery Get counts overflows under the remote Service's name, not the path asked
  // for (README "Remote discovery flow").
  let overflowLabel = path;
  const session = new StreamSession<Update>({
    call,
    streams: ctx.streams,
    metrics: ctx.grpcMetrics.start(DESTINATION_SERVICE_NAME, "Get"),
    logger,
    capacity: ctx.streamQueueCapacity,
    encode: encodedUpdate,
    onRefused: () => ctx.overflowMetrics.endpoints.inc({ service: overflowLabel }),
  });
  try {
    if (ctx.streams.closed) throw new StatusError(Status.UNAVAILABLE, "server is shutting down");
    const token = parseContextToken(request.contextToken, logger);
    const route = routeGet(path, ctx.clusterDomain);
    const { namespace, name } = route.service;
    const service = ctx.cluster.services.get(namespace, name);
    if (service === undefined) throw getServiceNotFound(route.service);
    const zone = ctx.nodeZones.zoneOf(token.nodeName);

    if (isFederated(service)) {
      const federation = ctx.federated.get(namespace, name);
      if (federation === undefined) {
        throw new StatusError(
          Status.UNKNOWN,
          `service ${namespace}/${name} is not a federated service`,
        );
      }
      const stream = new FederatedStream(ctx, session, route, token.nodeName, zone, logger);
      const unfollow = ctx.federated.subscribe(namespace, name, stream);
      session.onEnd(() => {
        unfollow();
        stream.close();
      });
      stream.changed(federation);
      return;
    }

    const remote = remoteTarget(ctx, service, route, path);
    if (remote !== undefined) overflowLabel = remote.overflowLabel;
    const translation =
      remote === undefined
        ? ctx.endpointTranslation
        : ctx.remoteTranslations.forCluster(remote.remote);
    const key = {
      hostname: route.instance,
      nodeName: token.nodeName,
      // Traffic-policy and zone-hint filtering apply to local endpoints only.
      enableEndpointFiltering: remote === undefined,
    };
    // Local streams are what the self-audit checks (README "Self-audit"); a subscription's
    // witness stream also folds what it is sent, for the audit to compare.
    const hold = (zoneOfStream: string): HeldGet =>
      remote === undefined
        ? ctx.getSubscriptions.hold({
            service: route.service,
            port: route.port,
            key,
            zone: zoneOfStream,
            authority: path,
          })
        : NOT_AUDITED;
    const translatorFor = (zoneOfStream: string, held: HeldGet) =>
      new EndpointTranslator(
        translation.forZone(zoneOfStream),
        held.witness === undefined ? session.sink : witnessedSink(session.sink, held.witness),
        logger,
      );
    let held = hold(zone);
    let source: EndpointSource = {
      watcher: remote?.remote.watcher ?? ctx.endpoints,
      service: remote?.service ?? route.service,
      port: route.port,
      key,
      translator: translatorFor(zone, held),
    };
    try {
      subscribeSource(source);
    } catch (err) {
      held.release();
      if (err instanceof InvalidServiceError) throw externalNameService(path);
      throw err;
    }
    // The caller's Node cached after the stream started, or relabelled: subscribe again with the
    // new zone's translation, so the whole set is sent again (one add) with the zone labels and
    // weights it would have had from the start.
    const unfollow = ctx.nodeZones.follow(token.nodeName, (next) => {
      unsubscribeSource(source);
      held.release();
      held = hold(next);
      source = { ...source, translator: translatorFor(next, held) };
      try {
        subscribeSource(source);
      } catch (err) {
        session.failUnexpected(err);
      }
    });
    session.onEnd(() => {
      unfollow();
      held.release();
      unsubscribeSource(source);
    });
    if (remote !== undefined) followRemoteCluster(ctx, session, remote.remote);
  } catch (err) {
    if (err instanceof StatusError) session.fail(err);
    else session.failUnexpected(err);
  }
}

/**
 * A remote stream ends with OK when its cluster is unlinked or relinked, and the proxy resolves
 * again: to NOT_FOUND, or to the new cluster. Ending beats moving the stream to the new cluster:
 * the new cluster's caches sync in the background, so a move would remove every address at once
 * and add the new ones only later, while a proxy keeps what it has until a new stream sends a
 * set; and the stream's translation and overflow label come from the cluster it started on.
 */
function followRemoteCluster(
  ctx: DestinationContext,
  session: StreamSession<Update>,
  remote: RemoteCluster,
): void {
  const unfollow = ctx.clusterStore.subscribe({
    linked: (_next, previous) => {
      if (previous === remote) session.end("remote cluster relinked");
    },
    unlinked: (gone) => {
      if (gone === remote) session.end("remote cluster unlinked");
    },
  });
  session.onEnd(unfollow);
}

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
