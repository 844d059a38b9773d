import { RESOURCE_KINDS, type ResourceKind } from "../resource-kind.js";
import { groupVersionPath } from "./api-resource.js";
import { KubeApiError, type KubeHttpClient } from "./kube-http.js";

/** What API discovery found: the kinds to cache, and why the missing CRDs are missing. */
export interface ApiAccess {
  readonly servedKinds: ReadonlySet<ResourceKind>;
  /** Upstream's error texts for CRDs that are not installed; the server runs without them. */
  readonly missingCrds: readonly string[];
}

/** The Linkerd CRDs, each checked (upstream stops after the first one). */
const LINKERD_CRDS: readonly { kind: ResourceKind; missing: string }[] = [
  { kind: "ServiceProfile", missing: "ServiceProfile CRD not found" },
  { kind: "Server", missing: "server CRD (policy.linkerd.io/v1beta3) not found" },
  // Upstream probes workload.linkerd.io/v1alpha1; the version that is cached is the one asked.
  { kind: "ExternalWorkload", missing: "ExternalWorkload CRD not found" },
];

/**
 * The startup checks (README "Startup checks") and the kinds they leave to cache:
 * - with slices enabled, `discovery.k8s.io/v1` must serve `EndpointSlice`, else
 *   `EndpointSlice resource not found`; no slice needs to exist (upstream wants one);
 * - listing pods cluster-wide must be allowed, else `not authorized to access pods`;
 * - every Linkerd CRD is looked up; a missing one is reported and served without, one that is
 *   there but may not be listed fails startup.
 * Throws on a failed check or when discovery itself fails.
 */
export async function checkApiAccess(
  client: KubeHttpClient,
  options: { readonly enableEndpointSlices: boolean },
): Promise<ApiAccess> {
  // The checks are independent requests, sent at once; a failure is reported as if they had
  // run one after another, the first in this order.
  const slices = options.enableEndpointSlices
    ? settle(servesKind(client, "EndpointSlice"))
    : undefined;
  const pods = settle(requireListAccess(client, "", "pods"));
  const crds = LINKERD_CRDS.map((crd) =>
    settle(
      servesKind(client, crd.kind).then(async (served) => {
        if (!served) return false;
        const info = RESOURCE_KINDS[crd.kind];
        await requireListAccess(client, info.group, info.plural);
        return true;
      }),
    ),
  );
  const served = new Set<ResourceKind>(["Service", "Pod", "Node", "ReplicaSet", "Job"]);
  if (slices !== undefined) {
    if (!unwrap(await slices)) throw new Error("EndpointSlice resource not found");
    served.add("EndpointSlice");
  } else served.add("Endpoints");
  unwrap(await pods);
  const missingCrds: string[] = [];
  for (const [i, crd] of LINKERD_CRDS.entries()) {
    if (unwrap(await (crds[i] as Promise<Settled<boolean>>))) served.add(crd.kind);
    else missingCrds.push(crd.missing);
  }
  return { servedKinds: served, missingCrds };
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** A promise that never rejects, so those awaited later are never left unhandled. */
function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

function unwrap<T>(settled: Settled<T>): T {
  if (settled.ok) return settled.value;
  throw settled.error;
}

/** Whether the kind's group-version is served and lists the kind. */
async function servesKind(client: KubeHttpClient, kind: ResourceKind): Promise<boolean> {
  const info = RESOURCE_KINDS[kind];
  const path = groupVersionPath(info);
  try {
    const list = await client.json<{ resources?: { kind?: string }[] }>({ path });
    return (list.resources ?? []).some((r) => r.kind === kind);
  } catch (err) {
    if (err instanceof KubeApiError && err.statusCode === 404) return false;
    throw new Error(`API discovery of ${path.slice(1)} failed: ${(err as Error).message}`);
  }
}

/** A SelfSubjectAccessReview for `list` on a resource in all namespaces. */
async function requireListAccess(
  client: KubeHttpClient,
  group: string,
  resource: string,
): Promise<void> {
  const review = await client.json<{ status?: { allowed?: boolean; reason?: string } }>({
    method: "POST",
    path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
    body: {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: { resourceAttributes: { namespace: "", verb: "list", group, resource } },
    },
  });
  if (review.status?.allowed) return;
  // Upstream names the resource as a Go GroupKind prints: `pods`, `servers.policy.linkerd.io`.
  const what = group === "" ? resource : `${resource}.${group}`;
  const reason = review.status?.reason;
  throw new Error(`not authorized to access ${what}${reason ? `: ${reason}` : ""}`);
}
