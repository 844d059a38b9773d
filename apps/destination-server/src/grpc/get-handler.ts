import { InvalidServiceError } from "@destination/k8s-discovery";
import type { GetCall, Update } from "@destination/proto";
import { EndpointTranslator } from "@destination/translators";
import { status } from "@grpc/grpc-js";
import { parseContextToken } from "../request/context-token.js";
import { externalNameService, getServiceNotFound, routeGet } from "../request/request-routes.js";
import { encodedUpdate } from "../streams/encoded-messages.js";
import { StreamSession } from "../streams/stream-session.js";
import { DESTINATION_SERVICE_NAME, type DestinationContext } from "./destination-context.js";
import { nodeZone } from "./node-zone.js";
import { StatusError } from "./status-error.js";

/**
 * `Get` (api.md §3): route the authority, check the Service, subscribe a translator to the
 * endpoints watcher and stream its updates until the client leaves, the stream falls behind or
 * the server shuts down. Federated and remote-discovery Services are served as local ones.
 */
export function handleGet(ctx: DestinationContext, call: GetCall): void {
  const path = call.request.path;
  const logger = ctx.logger.child({ rpc: "Get", path });
  const session = new StreamSession<Update>({
    call,
    streams: ctx.streams,
    metrics: ctx.grpcMetrics.start(DESTINATION_SERVICE_NAME, "Get"),
    logger,
    capacity: ctx.streamQueueCapacity,
    encode: encodedUpdate,
    onRefused: () => ctx.overflowMetrics.endpoints.inc({ service: path }),
  });
  try {
    if (ctx.streams.closed) throw new StatusError(status.UNAVAILABLE, "server is shutting down");
    const token = parseContextToken(call.request.contextToken, logger);
    const route = routeGet(path, ctx.clusterDomain);
    if (ctx.cluster.services.get(route.service.namespace, route.service.name) === undefined) {
      throw getServiceNotFound(route.service);
    }
    const zone = nodeZone(ctx.cluster, token.nodeName);
    const translator = new EndpointTranslator(
      ctx.endpointTranslation.forZone(zone),
      session.sink,
      logger,
    );
    const key = {
      hostname: route.instance,
      nodeName: token.nodeName,
      enableEndpointFiltering: true,
    };
    try {
      ctx.endpoints.subscribe(route.service, route.port, key, translator);
    } catch (err) {
      if (err instanceof InvalidServiceError) throw externalNameService(path);
      throw err;
    }
    session.onEnd(() => ctx.endpoints.unsubscribe(route.service, route.port, key, translator));
  } catch (err) {
    if (err instanceof StatusError) session.fail(err);
    else session.failUnexpected(err);
  }
}
