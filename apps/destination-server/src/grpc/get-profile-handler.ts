import { InvalidServiceError, type NamespacedName } from "@destination/core";

import { WorkloadLookupError, type WorkloadTarget } from "@destination/pod-watcher";

import type { DestinationProfile, GetDestination } from "@destination/proto";

import {
  createServiceProfileStream,
  EndpointProfileTranslator,
  portNotDefinedProfile,
} from "@destination/translators";

import { status as Status } from "@grpc/grpc-js";
import type { ServerLogger } from "../logging/server-logger.js";
import { LazyChildLogger } from "../logging/server-logger.js";

import { type ContextToken, parseContextToken } from "../request/context-token.js";

import {
  externalNameService,
  profileServiceNotFound,
  routeGetProfile,
} from "../request/request-routes.js";
import { encodedProfile } from "../streams/encoded-messages.js";

import type { StreamCall } from "../streams/stream-session.js";

import { StreamSession } from "../streams/stream-session.js";

import { DESTINATION_SERVICE_NAME, type DestinationContext } from "./destination-context.js";

import { StatusError } from "./status-error.js";

const LOOKUP_CODES = {
  FAILED_PRECONDITION: Status.FAILED_PRECONDITION,
  NOT_FOUND: Status.NOT_FOUND,
  UNKNOWN: Status.UNKNOWN,
} as const;

/**
 * `GetProfile` (README "GetProfile dispatch"): a service name or cluster IP goes to the
 * service-profile pipeline, any other IP or an instance name to the workload watcher (endpoint
 * profiles).
 */
export function handleGetProfile(
  ctx: DestinationContext,
  call: StreamCall,
  request: GetDestination,
): void {
  const path = request.path;
  const logger = new LazyChildLogger(ctx.logger, { rpc: "GetProfile", path });
  const metrics = ctx.grpcMetrics.start(DESTINATION_SERVICE_NAME, "GetProfile");
  // Which overflow counter applies depends on the flow, known only once the path is routed.
  let onRefused: (() => void) | undefined;
  let onOverflow: (() => void) | undefined;
  const session = new StreamSession<DestinationProfile>({
    call,
    streams: ctx.streams,
    metrics,
    logger,
    capacity: ctx.streamQueueCapacity,
    encode: encodedProfile,
    onRefused: () => onRefused?.(),
    onOverflow: () => onOverflow?.(),
  });
  const fail = (err: unknown) => {
    if (err instanceof StatusError) session.fail(err);
    else if (err instanceof WorkloadLookupError) {
      session.fail(new StatusError(LOOKUP_CODES[err.code], err.message));
    } else session.failUnexpected(err);
  };
  try {
    if (ctx.streams.closed) throw new StatusError(Status.UNAVAILABLE, "server is shutting down");
    const token = parseContextToken(request.contextToken, logger);
    const route = routeGetProfile(path, ctx.clusterDomain, (ip) =>
      ctx.cluster.indexes.servicesByClusterIp(ip).map((svc) => ({
        namespace: svc.metadata.namespace ?? "",
        name: svc.metadata.name,
      })),
    );
    if (route.kind === "service") {
      const labels = { fqn: route.fqn, port: String(route.port) };
      onRefused = () => ctx.overflowMetrics.profiles.inc(labels);
      serviceProfile(ctx, session, { ...route, path, token });
      return;
    }
    onOverflow = () => ctx.overflowMetrics.endpointProfiles.inc({});
    const target: WorkloadTarget =
      route.kind === "ip"
        ? { ip: route.ip, port: route.port }
        : { ip: "", port: route.port, hostname: route.hostname, service: route.service };
    endpointProfile(ctx, session, target, logger, path).catch(fail);
  } catch (err) {
    fail(err);
  }
}

interface ServiceProfileRequest {
  readonly service: NamespacedName;
  readonly fqn: string;
  readonly port: number;
  readonly path: string;
  readonly token: ContextToken;
}

/** The service-profile flow (README "Service-profile flow"). */
function serviceProfile(
  ctx: DestinationContext,
  session: StreamSession<DestinationProfile>,
  request: ServiceProfileRequest,
): void {
  const { service, fqn, port, path, token } = request;
  const svc = ctx.cluster.services.get(service.namespace, service.name);
  if (svc === undefined) throw profileServiceNotFound(service);
  if (!(svc.spec?.ports ?? []).some((p) => p.port === port)) {
    // A port the Service does not define: one empty profile, then silence until the stream
    // ends, even if the port is added later (as upstream).
    session.sink.send(portNotDefinedProfile());
    return;
  }
  const stream = createServiceProfileStream({
    fqn,
    service,
    port,
    tokenNamespace: token.ns,
    sink: session.sink,
    logger: new LazyChildLogger(ctx.logger, { rpc: "GetProfile", path }),
    counter: ctx.translations,
  });
  try {
    ctx.opaquePorts.subscribe(service, stream.opaquePortsListener);
  } catch (err) {
    if (err instanceof InvalidServiceError) throw externalNameService(path);
    throw err;
  }
  session.onEnd(() => ctx.opaquePorts.unsubscribe(service, stream.opaquePortsListener));
  for (const { id, listener } of stream.profileSubscriptions) {
    ctx.profiles.subscribe(id, listener);
    session.onEnd(() => ctx.profiles.unsubscribe(id, listener));
  }
  // What the self-audit checks (README "Self-audit").
  session.onEnd(
    ctx.profileSubscriptions.add({
      flow: "service",
      service,
      fqn,
      port,
      tokenNamespace: token.ns,
      authority: path,
    }),
  );
}

/**
 * The endpoint-profile flow (README "Endpoint-profile flow"): a pod, host port, ExternalWorkload
 * or bare IP.
 */
async function endpointProfile(
  ctx: DestinationContext,
  session: StreamSession<DestinationProfile>,
  target: WorkloadTarget,
  logger: ServerLogger,
  path: string,
): Promise<void> {
  const translator = new EndpointProfileTranslator(
    ctx.translatorConfig,
    session.sink,
    logger,
    ctx.translations,
  );
  const ip = await ctx.workloads.subscribe(target, translator);
  // The client may have left while the owner lookup was under way: onEnd then runs at once.
  session.onEnd(() => ctx.workloads.unsubscribe(ip, target.port, translator));
  // What the self-audit checks (README "Self-audit").
  session.onEnd(ctx.profileSubscriptions.add({ flow: "endpoint", target, authority: path }));
}
