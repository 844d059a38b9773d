// The workspace's layers, checked by `pnpm lint:deps` (part of `pnpm lint`, so CI fails on a
// reversed arrow). docs/architecture.md draws the same graph; `pnpm deps:graph` redraws it.
//
// Each workspace folder may import only the folders listed for it (and itself). Imports of
// npm packages are not restricted here; package.json files say which ones each package may use.
const layers = {
  // The bottom layer: Go's rules, then the domain core and the wire schema on them.
  "packages/go-compat": [],
  "packages/core": ["packages/go-compat"],
  "packages/proto": ["packages/go-compat"],
  // Cluster access.
  "packages/k8s-discovery": ["packages/core", "packages/go-compat"],
  // Writes EndpointSlices for ExternalWorkloads, reading the cluster's caches.
  "packages/external-workload-controller": ["packages/core", "packages/k8s-discovery"],
  // Watchers read the cluster and publish to listeners.
  "packages/endpoints-watcher": ["packages/core", "packages/go-compat", "packages/k8s-discovery"],
  "packages/pod-watcher": ["packages/core", "packages/go-compat", "packages/k8s-discovery"],
  "packages/profile-watchers": ["packages/core", "packages/go-compat", "packages/k8s-discovery"],
  "packages/multicluster": [
    "packages/core",
    "packages/go-compat",
    "packages/k8s-discovery",
    "packages/endpoints-watcher",
  ],
  // Watcher output in, proxy API messages out: no cluster access.
  "packages/translators": ["packages/core", "packages/go-compat", "packages/proto"],
  // The server composes every package. The CLI speaks the proto API to a server; only
  // `dst audit` imports the server (lazily, apps/cli README "dst audit"), as its reference.
  "apps/destination-server": [
    "packages/core",
    "packages/go-compat",
    "packages/proto",
    "packages/k8s-discovery",
    "packages/endpoints-watcher",
    "packages/external-workload-controller",
    "packages/pod-watcher",
    "packages/profile-watchers",
    "packages/multicluster",
    "packages/translators",
  ],
  "apps/cli": ["packages/proto", "apps/destination-server"],
};

const literal = (path) => path.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

const layerRules = Object.entries(layers).map(([from, allowed]) => ({
  name: `layers: ${from}`,
  comment: `${from} may import only ${allowed.length ? allowed.join(", ") : "no workspace folder"}`,
  severity: "error",
  from: { path: `^${literal(from)}/src/`, pathNot: "\\.test\\.ts$" },
  to: {
    path: "^(packages|apps|tooling)/",
    pathNot: [from, ...allowed].map((folder) => `^${literal(folder)}/`),
  },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "A cycle makes load order and ownership unclear.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "not-to-unresolvable",
      comment: "An import that does not resolve, e.g. a workspace package not in package.json.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: "no-undeclared-dependency",
      comment: "Every npm or workspace package a file imports is declared in its package.json.",
      severity: "error",
      from: {},
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown"] },
    },
    ...layerRules,
    {
      name: "no-tooling-in-products",
      comment:
        "Packages and apps never import test infrastructure; their tests may import only " +
        "tooling/vitest-config and tooling/test-support.",
      severity: "error",
      from: { path: "^(packages|apps)/[^/]+/src/" },
      to: { path: "^tooling/(?!vitest-config/|test-support/)" },
    },
    {
      name: "no-test-support-in-production",
      comment:
        "@destination/test-support (tooling/test-support) is for tests: a package's or app's " +
        "code outside its *.test.ts files and test/ folder never imports it.",
      severity: "error",
      from: {
        path: "^(packages|apps)/[^/]+/",
        pathNot: "\\.test\\.ts$|^(packages|apps)/[^/]+/test/",
      },
      to: { path: "^tooling/test-support/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(dist|node_modules)/" },
    // Resolve workspace imports to their sources, as the tests and type checks do.
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["@destination/source", "import", "types", "default"],
      extensions: [".ts", ".js", ".mjs", ".json"],
    },
    tsPreCompilationDeps: true,
  },
};
