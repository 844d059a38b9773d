// Public API of @destination/profile-watchers: the two watchers behind GetProfile on a service,
// ServiceProfiles by name and the opaque ports of Services. One group: a user needs a watcher
// and its options, nothing else.

export type { OpaquePortsWatcherOptions } from "./opaque-ports-watcher.js";
export { OpaquePortsWatcher } from "./opaque-ports-watcher.js";
export type { ProfileWatcherOptions } from "./profile-watcher.js";
export { ProfileWatcher } from "./profile-watcher.js";
