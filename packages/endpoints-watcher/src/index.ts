export type { EndpointsWatcherOptions } from "./endpoints-watcher.js";
export { EndpointsWatcher } from "./endpoints-watcher.js";
export type { FilterKey } from "./filter-key.js";
export type { ServiceId } from "./service-id.js";
export { serviceTargetPort, slicePort, type TargetPort } from "./target-port.js";
