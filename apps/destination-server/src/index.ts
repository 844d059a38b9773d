// Public API of @destination/server: start the destination service in-process (tests,
// benchmarks, embedding), mount its handlers on a grpc-js Server of one's own, or parse a
// command line the way the binary does.

export { FlagError } from "@destination/go-compat";
export type { RemoteClusterFactory } from "@destination/multicluster";
export type {
  AddressReport,
  EndpointReport,
  EndpointsReport,
  NotServedReason,
  PodReport,
  ServiceReport,
  SliceReport,
  SubscribersReport,
} from "./admin/endpoints-report.js";
export type { CommandLine } from "./config/flag-options.js";
export { ConfigError, parseCommandLine } from "./config/flag-options.js";
export { CHART_MESHED_HTTP2_CLIENT_PARAMS, SERVER_FLAGS } from "./config/server-flags.js";
export type { RunningDestinationServer } from "./destination-server.js";
export { CacheSyncTimeoutError, startDestinationServer } from "./destination-server.js";
export {
  createDestinationContext,
  type DestinationContextHandle,
  type DestinationContextOptions,
} from "./grpc/create-destination-context.js";
export type { DestinationContext } from "./grpc/destination-context.js";
export { destinationHandlers } from "./grpc/destination-handlers.js";
export type {
  LogFormat,
  LogLevel,
  ServerLogger,
  ServerLoggerOptions,
} from "./logging/server-logger.js";
export { createServerLogger } from "./logging/server-logger.js";
export {
  DESTINATION_CONTAINER,
  readDeploymentArgs,
} from "./reference/deployment-args.js";
export {
  type ReferenceOptions,
  referenceOptionsFromArgs,
} from "./reference/reference-options.js";
export {
  type ReferenceServer,
  type ReferenceServicePort,
  type ReferenceSource,
  startReferenceServer,
} from "./reference/reference-server.js";
export type { DestinationServerOptions } from "./server-options.js";
export { VERSION } from "./version.js";
