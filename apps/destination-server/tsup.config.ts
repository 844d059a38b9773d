import { defineConfig } from "tsup";

export default defineConfig({
  // The library (what tests, the integration suite and the bench import) and the binary's entry
  // (`bin/destination-server.js` imports `dist/main.js`). Dependencies, the workspace packages
  // included, stay imports: node loads them from their own `dist/`.
  entry: ["src/index.ts", "src/testing/index.ts", "src/main.ts"],
  format: ["esm"],
  dts: { entry: ["src/index.ts", "src/testing/index.ts"] },
  clean: true,
  sourcemap: true,
  target: "node20",
});
