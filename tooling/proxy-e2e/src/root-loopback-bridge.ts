// The way into the root namespace's loopback from a test's namespace: a Unix socket (reachable
// from every network namespace) whose connections are spliced to 127.0.0.1:port out here. The
// agent in the namespace listens on an address there and connects to this socket.
import { connect, createServer, type Server } from "node:net";

/** A Unix socket in the root namespace whose connections reach 127.0.0.1:port there. */
export async function rootLoopbackBridge(socketPath: string, port: number): Promise<Server> {
  const server = createServer((inbound) => {
    const outbound = connect({ host: "127.0.0.1", port });
    inbound.pipe(outbound);
    outbound.pipe(inbound);
    const end = () => {
      inbound.destroy();
      outbound.destroy();
    };
    inbound.on("error", end);
    outbound.on("error", end);
    inbound.on("close", end);
    outbound.on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return server;
}
