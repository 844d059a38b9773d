import { ExternalWorkloadController } from "@destination/external-workload-controller";
import { createKubeCluster } from "@destination/k8s-discovery";

const cluster = await createKubeCluster({ enableEndpointSlices: true });
const controller = new ExternalWorkloadController({
  cluster,
  api: cluster.api,
  hostname: process.env.HOSTNAME ?? "my-laptop",
  controllerNamespace: "linkerd",
  logger: console,
});
await cluster.start(); // the controller registered its cache handlers when it was created
await cluster.whenSynced();
controller.start();
process.once("SIGINT", async () => {
  await controller.stop(); // the sync in progress ends, then the Lease is released
  await cluster.stop();
});
