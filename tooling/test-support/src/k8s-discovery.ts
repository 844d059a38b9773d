// The `@destination/k8s-discovery/testing` entry: test helpers for backends, importing vitest.

export type {
  BackendHarness,
  BackendHarnessFactory,
  BackendSuiteOptions,
  RecordedEvent,
} from "./backend-suite.js";
export { backendSuiteFixture, describeBackendSuite, EventRecorder } from "./backend-suite.js";
export type { FakeApiServerOptions, RecordedRequest } from "./fake-api-server.js";
export { FakeApiServer } from "./fake-api-server.js";
export { ManualClock } from "./manual-clock.js";
