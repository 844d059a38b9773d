import { afterEach } from "vitest";
import { startTestServer, type TestServer } from "./test-server.js";

/**
 * The per-test server lifecycle of the e2e files: call it once at the top of a file; the
 * function it returns starts a server for the running test, and every server a test started is
 * closed after it, whether the test passed or not.
 */
export function serverPerTest(): (
  options?: Parameters<typeof startTestServer>[0],
) => Promise<TestServer> {
  const started: TestServer[] = [];
  afterEach(async () => {
    for (const server of started.splice(0)) await server.close();
  });
  return async (options) => {
    const server = await startTestServer(options);
    started.push(server);
    return server;
  };
}
