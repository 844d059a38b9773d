import { DestinationClient } from "@destination/proto/client";
import * as grpc from "@grpc/grpc-js";

/**
 * Node's HTTP/2 server ends a connection (GOAWAY, INTERNAL_ERROR) whose client resets streams
 * faster than its rapid-reset limit allows: a burst of about 1,000, then about 33 a second.
 * Fuzzing cancels every stream right after its first message, so one connection would hit that
 * limit tens of thousands of requests in. This client opens a new connection every
 * `callsPerConnection` calls, as many proxies would, and closes the previous one.
 */
export class RotatingClient {
  private current: DestinationClient | undefined;
  private calls = 0;
  /** Connections opened so far. */
  connections = 0;

  constructor(
    private readonly target: string,
    private readonly callsPerConnection: number,
  ) {}

  /** The client for the next call. */
  next(): DestinationClient {
    if (this.current === undefined || this.calls >= this.callsPerConnection) {
      this.current?.close();
      // Without a local pool, clients to one target share a subchannel and so one connection.
      this.current = new DestinationClient(this.target, grpc.credentials.createInsecure(), {
        "grpc.use_local_subchannel_pool": 1,
      });
      this.calls = 0;
      this.connections++;
    }
    this.calls++;
    return this.current;
  }

  close(): void {
    this.current?.close();
    this.current = undefined;
  }
}
