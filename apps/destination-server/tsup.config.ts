import { defineConfig } from "tsup";

/** Required by the bundle on first use rather than bundled (see the bundle's build below). */
const LOADED_ON_DEMAND = ["@grpc/reflection", "@grpc/proto-loader"];
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export default defineConfig([
  {
    // The library: what tests, the integration suite and the bench import.
    entry: ["src/index.ts", "src/testing/index.ts", "src/launch.ts"],
    format: ["esm"],
    dts: { entry: ["src/index.ts", "src/testing/index.ts"] },
    // The bundle's files are written by the other build, at the same time.
    clean: ["!server.cjs*"],
    sourcemap: true,
    target: "node20",
  },
  {
    // The binary's code in one file, dependencies included, so a start reads and compiles one
    // file instead of a few hundred modules. CommonJS, so `launch.ts` can run it as a script with
    // a V8 code cache (Node 20 has no code cache for ES modules). Left out: what is only ever
    // loaded on demand (reflection at its first call). client-node is bundled, tree-shaken to
    // what its KubeConfig reaches: its index alone loads every generated API client.
    entry: { server: "src/main.ts" },
    format: ["cjs"],
    outExtension: () => ({ js: ".cjs" }),
    platform: "node",
    target: "node20",
    // Everything else is bundled, dependency or not; `noExternal` wins over `external`, so it
    // names everything but these, and `external` keeps out those that are not dependencies.
    noExternal: [new RegExp(`^(?!(?:${LOADED_ON_DEMAND.map(escapeRegExp).join("|")})$)`)],
    external: LOADED_ON_DEMAND,
    shims: true,
    sourcemap: true,
    splitting: false,
    // `import()` of what stays outside becomes `require()`: a script has no loader for import()
    // (see src/launch/code-cached-script.ts).
    esbuildOptions(options) {
      options.supported = { ...options.supported, "dynamic-import": false };
    },
  },
]);
