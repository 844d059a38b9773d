import { defineTestConfig } from "@destination/vitest-config";

export default defineTestConfig();
