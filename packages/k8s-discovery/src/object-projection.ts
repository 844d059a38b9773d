import type { Container, KubeObject, Pod, Service, ServicePort } from "@destination/core";
import { latestUpdateTime } from "./informer-lag.js";

/**
 * What the cluster backend keeps of an object from the API server. Of `managedFields` (about a
 * third of a pod's JSON) only the latest `Update` time, which informer lag is measured from.
 * Of a Pod only the fields of the `Pod` type, which are all that any watcher reads: a real pod's
 * spec and status also carry volumes, probes, resources, conditions and container statuses.
 * Of a Service likewise the fields of the `Service` type (its status, affinity and load-balancer
 * settings are not read). Objects are kept as they came otherwise.
 */
export function projectObject<T extends KubeObject>(obj: T): T {
  const metadata = obj.metadata;
  let out = obj;
  if (metadata?.managedFields != null) {
    const { managedFields, ...rest } = metadata;
    const entries = Array.isArray(managedFields) ? managedFields : [];
    const updated = latestUpdateTime(entries);
    const latest = entries.find(
      (e) => e?.operation === "Update" && e.time && Date.parse(e.time) === updated,
    );
    out = {
      ...obj,
      metadata:
        latest === undefined
          ? rest
          : { ...rest, managedFields: [{ operation: "Update", time: latest.time ?? null }] },
    };
  }
  if (obj.kind === "Pod") return projectPod(out as Pod) as unknown as T;
  if (obj.kind === "Service") return projectService(out as Service) as unknown as T;
  return out;
}

function projectService(svc: Service): Service {
  const { spec } = svc;
  const out: Service = { apiVersion: svc.apiVersion, kind: svc.kind, metadata: svc.metadata };
  if (spec && typeof spec === "object") {
    out.spec = pick(spec, [
      "type",
      "clusterIP",
      "clusterIPs",
      "selector",
      "externalName",
      "internalTrafficPolicy",
      "ipFamilies",
    ]);
    setProjectedList(out.spec, "ports", spec.ports, projectServicePort);
  } else if (spec !== undefined) out.spec = spec;
  return out;
}

function projectServicePort(port: ServicePort): ServicePort {
  if (typeof port !== "object" || port === null) return port;
  return pick(port, ["name", "protocol", "port", "targetPort", "nodePort"]) as ServicePort;
}

function projectPod(pod: Pod): Pod {
  const { spec, status } = pod;
  const out: Pod = { apiVersion: pod.apiVersion, kind: pod.kind, metadata: pod.metadata };
  if (spec) {
    out.spec = pick(spec, [
      "nodeName",
      "hostNetwork",
      "hostname",
      "subdomain",
      "serviceAccountName",
    ]);
    setProjectedList(out.spec, "containers", spec.containers, projectContainer);
    setProjectedList(out.spec, "initContainers", spec.initContainers, projectContainer);
  }
  if (status) out.status = pick(status, ["phase", "podIP", "podIPs", "hostIP", "hostIPs"]);
  return out;
}

function projectContainer(container: Container): Container {
  if (typeof container !== "object" || container === null) return container;
  const out = pick(container, ["name", "ports"]) as Container;
  // Only literal values are read (the proxy's listen addresses); `valueFrom` is not.
  setProjectedList(out, "env", container.env, (e) =>
    typeof e === "object" && e !== null ? pick(e, ["name", "value"]) : e,
  );
  return out;
}

/**
 * Sets `into[key]` to `list` with each element projected, or to `list` as it is when it is not
 * a list (null, or a malformed value that validation will name); absent stays absent.
 */
function setProjectedList<T extends object, K extends keyof T, E>(
  into: T,
  key: K,
  list: readonly E[] | null | undefined,
  project: (item: E) => E,
): void {
  if (list === undefined) return;
  into[key] = (Array.isArray(list) ? list.map(project) : list) as T[K];
}

function pick<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const key of keys) if (from[key] !== undefined) out[key] = from[key];
  return out;
}
