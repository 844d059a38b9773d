export type { SliceAddressType } from "./address-types.js";
export { addressTypeOf, supportedAddressTypes } from "./address-types.js";
export { endpointKey, endpointsEqualBeyondKey } from "./endpoint-identity.js";
export { endpointPortsOf, portSetKey } from "./endpoint-ports.js";
export type { ExternalWorkloadControllerOptions } from "./external-workload-controller.js";
export { ExternalWorkloadController } from "./external-workload-controller.js";
export type { Lease, LeaseElectorOptions, LeaseRecord } from "./lease-elector.js";
export { LeaseElector, microTime } from "./lease-elector.js";
export type { QueueMetrics } from "./queue-metrics.js";
export {
  noopQueueMetrics,
  QUEUE_DURATION_BUCKETS,
  QUEUE_METRIC_NAMES,
  queueMetrics,
} from "./queue-metrics.js";
export type { RbacNeed } from "./rbac-needs.js";
export { RBAC_NEEDS } from "./rbac-needs.js";
export { serviceSelects, servicesSelecting } from "./service-membership.js";
export { sliceLabels } from "./slice-labels.js";
export type {
  ControllerReference,
  NewEndpointSlice,
  SlicePlan,
  SlicePlanOptions,
} from "./slice-plan.js";
export { ownedBy, planEndpointSlices } from "./slice-plan.js";
export * from "./upstream-constants.js";
export { servicesToSyncOnUpdate, workloadChange } from "./workload-change.js";
export { workloadEndpoint } from "./workload-endpoint.js";
export { isWorkloadReady } from "./workload-readiness.js";
