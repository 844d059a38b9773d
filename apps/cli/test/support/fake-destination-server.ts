// A scripted Destination server on a loopback port, for driving the CLI's gRPC handling
// without the real server.

import {
  type DestinationServer,
  DestinationService,
  type GetCall,
  type GetProfileCall,
} from "@destination/proto";
import * as grpc from "@grpc/grpc-js";

export interface FakeDestinationServer {
  readonly addr: string;
  /** What each new Get / GetProfile call does; replace per test. */
  onGet: (call: GetCall) => void;
  onGetProfile: (call: GetProfileCall) => void;
  /** Resolves when the server sees a call cancelled by the client. */
  nextCancellation(): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeDestinationServer(): Promise<FakeDestinationServer> {
  const server = new grpc.Server();
  const cancellationWaiters: (() => void)[] = [];
  const watchCancel = (call: GetCall | GetProfileCall) =>
    call.on("cancelled", () => cancellationWaiters.shift()?.());
  const fake: FakeDestinationServer = {
    addr: "",
    onGet: () => {},
    onGetProfile: () => {},
    nextCancellation: () => new Promise((resolve) => cancellationWaiters.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        server.forceShutdown();
        resolve();
      }),
  };
  const impl: DestinationServer = {
    get(call) {
      watchCancel(call);
      fake.onGet(call);
    },
    getProfile(call) {
      watchCancel(call);
      fake.onGetProfile(call);
    },
  };
  server.addService(DestinationService, impl);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return Object.assign(fake, { addr: `127.0.0.1:${port}` });
}

/** A loopback address where nothing listens: a port just released by a closed server. */
export async function unusedLoopbackAddress(): Promise<string> {
  const server = new grpc.Server();
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  server.forceShutdown();
  return `127.0.0.1:${port}`;
}
