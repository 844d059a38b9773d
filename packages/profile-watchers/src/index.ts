export type { OpaquePortsWatcherOptions } from "./opaque-ports-watcher.js";
export { OpaquePortsWatcher } from "./opaque-ports-watcher.js";
export type { ProfileWatcherOptions } from "./profile-watcher.js";
export { ProfileWatcher } from "./profile-watcher.js";
