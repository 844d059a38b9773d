// The `@destination/k8s-discovery/testing` entry: test helpers for backends, importing vitest.

export type { FakeApiServerOptions, RecordedRequest } from "../kube/fake-api-server.js";
export { FakeApiServer } from "../kube/fake-api-server.js";
export { projectObject } from "../object-projection.js";
export type {
  BackendHarness,
  BackendHarnessFactory,
  BackendSuiteOptions,
  RecordedEvent,
} from "./backend-suite.js";
export { backendSuiteFixture, describeBackendSuite, EventRecorder } from "./backend-suite.js";
export { ManualClock } from "./manual-clock.js";
