import { defineE2eTestConfig } from "@destination/vitest-config";

// The tests that spawn real processes (`*.e2e.test.ts`); `test` leaves them out.
export default defineE2eTestConfig();
