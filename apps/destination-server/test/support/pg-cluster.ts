import { MemoryCluster } from "@destination/k8s-discovery";
import { pod, service, slice } from "@destination/test-support/server";

/**
 * Service `data/pg` (port 5432) with the given instances `pg-<i>` at `10.244.5.<i+1>`, listed
 * with their hostnames in one slice: the instance-name lookups of Get and GetProfile start here.
 */
export function pgCluster(instances: readonly number[]): MemoryCluster {
  const cluster = new MemoryCluster();
  cluster.apply(service("data", "pg", [{ port: 5432 }]));
  const members = instances.map((i) => ({ name: `pg-${i}`, ip: `10.244.5.${i + 1}` }));
  for (const { name, ip } of members) {
    cluster.apply(pod({ namespace: "data", name, ip, ports: [["pg", 5432]] }));
  }
  cluster.apply(
    slice(
      "data",
      "pg-x",
      "pg",
      [{ port: 5432 }],
      members.map(({ name, ip }) => ({ ip, pod: name, hostname: name })),
    ),
  );
  return cluster;
}
