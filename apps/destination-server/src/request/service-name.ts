/**
 * A Kubernetes service authority (README "Authorities"), with the StatefulSet-style instance if
 * any.
 */
export interface ServiceName {
  readonly namespace: string;
  readonly name: string;
  /** The first label of `<instance>.<svc>.<ns>.svc.<domain>`, else "". */
  readonly instance: string;
}

/** Why a host is not a service name; `message` is upstream's text. */
export class ServiceNameError extends Error {
  override readonly name = "ServiceNameError";
}

/**
 * Parses `<svc>.<ns>.svc.<domain>` or `<instance>.<svc>.<ns>.svc.<domain>`, comparing the
 * suffix exactly (no trailing dot, no short names), as upstream's `parseK8sServiceName`.
 */
export function parseServiceName(host: string, clusterDomain: string): ServiceName {
  const labels = host.split(".");
  const suffix = suffixLabels(clusterDomain);
  const offset = labels.length - suffix.length;
  let matches = offset >= 0;
  for (let i = 0; matches && i < suffix.length; i++) matches = labels[offset + i] === suffix[i];
  if (!matches) {
    throw new ServiceNameError(`name ${host} does not match cluster domain ${clusterDomain}`);
  }
  if (offset === 2) {
    return { name: labels[0] ?? "", namespace: labels[1] ?? "", instance: "" };
  }
  if (offset === 3) {
    return { instance: labels[0] ?? "", name: labels[1] ?? "", namespace: labels[2] ?? "" };
  }
  throw new ServiceNameError(`invalid k8s service ${host}`);
}

/** `svc` and the domain's labels. A server has one cluster domain: the last one is kept. */
let lastSuffix: { readonly domain: string; readonly labels: readonly string[] } | undefined;

function suffixLabels(clusterDomain: string): readonly string[] {
  if (lastSuffix?.domain !== clusterDomain) {
    lastSuffix = { domain: clusterDomain, labels: ["svc", ...clusterDomain.split(".")] };
  }
  return lastSuffix.labels;
}
