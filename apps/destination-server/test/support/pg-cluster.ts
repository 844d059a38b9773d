import { MemoryCluster } from "@destination/k8s-discovery";
import { CLUSTER_POD, pod, podEndpoint, service, slice } from "@destination/test-support/builders";

/**
 * Service `data/pg` (port 5432) with the given instances `pg-<i>` at `10.244.5.<i+1>`, listed
 * with their hostnames in one slice: the instance-name lookups of Get and GetProfile start here.
 */
export function pgCluster(instances: readonly number[]): MemoryCluster {
  const cluster = new MemoryCluster();
  cluster.apply(service("pg", { namespace: "data", ports: [{ port: 5432, protocol: "TCP" }] }));
  const members = instances.map((i) => ({ name: `pg-${i}`, ip: `10.244.5.${i + 1}` }));
  for (const { name, ip } of members) {
    cluster.apply(
      pod(name, {
        ...CLUSTER_POD,
        namespace: "data",
        ip,
        labels: {},
        ports: [{ name: "pg", containerPort: 5432, protocol: "TCP" }],
      }),
    );
  }
  cluster.apply(
    slice(
      "pg-x",
      "pg",
      members.map(({ name, ip }) => podEndpoint(name, ip, { namespace: "data", hostname: name })),
      { namespace: "data", ports: [{ port: 5432, protocol: "TCP" }] },
    ),
  );
  return cluster;
}
