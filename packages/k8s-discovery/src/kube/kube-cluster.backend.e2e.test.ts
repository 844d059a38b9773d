import { describeBackendSuite } from "@destination/test-support/backend-suite";
import { FakeApiServer } from "@destination/test-support/fake-api-server";
import { createKubeCluster } from "./kube-cluster.js";

// The cluster backend over HTTP against the fake API server; the same suite runs against a real
// kube-apiserver in the integration tests.
describeBackendSuite("cluster (fake API server)", async (initial) => {
  const server = new FakeApiServer();
  await server.start();
  for (const obj of initial) server.apply(obj);
  const cluster = createKubeCluster({
    kubeConfig: server.kubeConfig(),
    enableEndpointSlices: true,
    resyncMs: 0,
    backoff: { baseMs: 20, capMs: 200 },
  });
  return {
    cluster,
    async apply(...objects) {
      for (const obj of objects) server.apply(obj);
    },
    async delete(kind, namespace, name) {
      server.delete(kind, namespace, name);
    },
    whileDisconnected: (change) => server.disconnected(change),
    async close() {
      await cluster.stop();
      await server.close();
    },
  };
});
