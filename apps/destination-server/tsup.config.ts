import { defineConfig } from "tsup";

export default defineConfig([
  {
    // The library: what tests, the integration suite and the bench import. Dependencies, the
    // workspace packages included, stay imports.
    entry: ["src/index.ts"],
    format: ["esm"],
    dts: { entry: ["src/index.ts"] },
    // The binary's entry is written by the other build, at the same time.
    // Both builds write into dist/ at once: the build script empties it first instead.
    clean: false,
    sourcemap: true,
    target: "node24",
  },
  {
    // The binary's entry (`bin/destination-server.js` imports `dist/main.js`). The workspace
    // packages and `@kubernetes/client-node` are bundled so that client-node is tree-shaken to
    // what its KubeConfig reaches: its index alone loads every generated API client, seconds of
    // a start (server README, "What a start loads"). npm dependencies otherwise stay imports.
    entry: {
      main: "src/main.ts",
      "node-flags": "src/runtime/node-flags.ts",
      // The gRPC serving thread (-grpc-serving-thread), started beside either build's code.
      "grpc-serving-thread": "src/grpc/serving-thread.ts",
    },
    format: ["esm"],
    platform: "node",
    target: "node24",
    sourcemap: true,
    noExternal: [/^@destination\//, /^@kubernetes\/client-node(\/|$)/],
    // Bundled CommonJS dependencies of client-node call require(); an ES module has none.
    banner: {
      js: 'import { createRequire as __destinationCreateRequire } from "node:module"; const require = __destinationCreateRequire(import.meta.url);',
    },
  },
]);
