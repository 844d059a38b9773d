export type {
  OpaquePortsWatcherOptions,
  ServiceId,
} from "./opaque-ports-watcher.js";
export { OpaquePortsWatcher } from "./opaque-ports-watcher.js";
export type { ProfileId, ProfileWatcherOptions } from "./profile-watcher.js";
export { ProfileWatcher } from "./profile-watcher.js";
