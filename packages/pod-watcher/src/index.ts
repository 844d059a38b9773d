// Public API of @destination/pod-watcher: the workload watcher behind GetProfile on an
// `ip:port` or an instance name, the target it is asked about and the error of a failed lookup.
// One group: its users are the servers that answer GetProfile, and they need all of it.

export type { WorkloadLookupErrorCode } from "./workload-lookup-error.js";
export { WorkloadLookupError } from "./workload-lookup-error.js";
export type { WorkloadTarget, WorkloadWatcherOptions } from "./workload-watcher.js";
export { WorkloadWatcher } from "./workload-watcher.js";
