// Upstream's names and numbers (linkerd2 controller/api/destination/external-workload), which a
// drop-in replacement has to keep: another replica, a dashboard or an operator reads them.

/** The Lease every replica competes for; its holder is the only writer of EndpointSlices. */
export const LEASE_NAME = "linkerd-destination-endpoint-write";
/** How long a Lease holds without renewal (kube-controller-manager uses 15 s). */
export const LEASE_DURATION_MS = 30_000;
/** How long the holder keeps trying to renew before it gives the Lease up. */
export const LEASE_RENEW_DEADLINE_MS = 10_000;
/** The wait between two attempts to acquire or renew. */
export const LEASE_RETRY_PERIOD_MS = 2_000;

/** The `endpointslice.kubernetes.io/managed-by` value of every slice this controller writes. */
export const MANAGED_BY = "linkerd-external-workloads-controller";
/** Endpoints per EndpointSlice. */
export const MAX_ENDPOINTS_PER_SLICE = 100;
/** Failed syncs of one Service before it is dropped from the queue. */
export const MAX_SYNC_RETRIES = 15;
/** The work queue's name: the `name` label of its metrics. */
export const QUEUE_NAME = "endpoints_controller_workqueue";

/** Kubernetes' well-known labels the slices carry or the controller reads. */
export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";
export const MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
export const HEADLESS_SERVICE_LABEL = "service.kubernetes.io/headless";
export const TOPOLOGY_ZONE_LABEL = "topology.kubernetes.io/zone";
