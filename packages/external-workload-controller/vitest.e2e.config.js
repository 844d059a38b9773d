import { defineE2eTestConfig } from "@destination/vitest-config";

// The tests that spawn binaries or open real sockets (`*.e2e.test.ts`); `test` leaves them out.
export default defineE2eTestConfig();
