// Public API of @destination/external-workload-controller: Linkerd's mesh-expansion controller,
// which writes the EndpointSlices of Services that select ExternalWorkloads while its replica
// holds a Lease. What the server does not need stays inside (the queue, the Lease elector, the
// membership and readiness rules), reachable through the controller alone.

// For users: the controller, the RBAC it needs, and upstream's names (Lease, managed-by label).

export type { ExternalWorkloadControllerOptions } from "./external-workload-controller.js";
export { ExternalWorkloadController } from "./external-workload-controller.js";
export type { RbacNeed } from "./rbac-needs.js";
export { RBAC_NEEDS } from "./rbac-needs.js";
export * from "./upstream-constants.js";

// For authors of other controllers: the reconciliation as a pure function (README, "Example").

export type {
  ControllerReference,
  NewEndpointSlice,
  SlicePlan,
  SlicePlanOptions,
} from "./slice-plan.js";
export { planEndpointSlices } from "./slice-plan.js";
