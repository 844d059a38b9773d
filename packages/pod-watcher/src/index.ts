export type { WorkloadLookupErrorCode } from "./workload-lookup-error.js";
export { WorkloadLookupError } from "./workload-lookup-error.js";
export type { WorkloadTarget } from "./workload-target.js";
export type { WorkloadWatcherOptions } from "./workload-watcher.js";
export { WorkloadWatcher } from "./workload-watcher.js";
