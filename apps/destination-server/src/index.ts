// Public API of @destination/server: the io.linkerd.proxy.destination.Destination gRPC server,
// composed from the workspace packages.

// For users: starting the server in-process (tests, benchmarks, embedding), parsing a command
// line the way the binary does, its logger, its flags and its version.

export { FlagError } from "@destination/go-compat";
export type { RemoteClusterFactory } from "@destination/multicluster";
export type { CommandLine } from "./config/flag-options.js";
export { ConfigError, parseCommandLine } from "./config/flag-options.js";
export { SERVER_FLAGS } from "./config/server-flags.js";
export type { RunningDestinationServer } from "./destination-server.js";
export { CacheSyncTimeoutError, startDestinationServer } from "./destination-server.js";
export type {
  LogFormat,
  LogLevel,
  ServerLogger,
  ServerLoggerOptions,
} from "./logging/server-logger.js";
export { createServerLogger } from "./logging/server-logger.js";
export type { DestinationServerOptions } from "./server-options.js";
export { VERSION } from "./version.js";

// For authors of their own grpc-js server (mounting the Destination handlers beside other
// services) and of tools comparing a running server against a reference one (the cli's
// `dst audit`): the handlers and their context, and the reference server with its options.

export {
  createDestinationContext,
  type DestinationContextHandle,
  type DestinationContextOptions,
} from "./grpc/create-destination-context.js";
export type { DestinationContext } from "./grpc/destination-context.js";
export { destinationHandlers } from "./grpc/destination-handlers.js";
export {
  type ReferenceOptions,
  readDeploymentArgs,
  referenceOptionsFromArgs,
} from "./reference/reference-options.js";
export {
  type ReferenceServer,
  type ReferenceServicePort,
  type ReferenceSource,
  startReferenceServer,
} from "./reference/reference-server.js";
