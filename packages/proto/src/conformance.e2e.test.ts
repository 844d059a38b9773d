// Schema conformance: our .proto files, and the descriptors embedded in the generated code,
// must match linkerd2-proxy-api v0.20.0 field for field. Upstream is fetched with the Go
// toolchain (the Go module cache doubles as our download cache) and compiled with buf.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type DescFile, fromBinary } from "@bufbuild/protobuf";
import {
  type FileDescriptorProto,
  FileDescriptorSetSchema,
  file_google_protobuf_duration,
} from "@bufbuild/protobuf/wkt";
import { diffFileDescriptorSets } from "@destination/test-support/descriptor-diff";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { file_destination } from "./gen/destination_pb.js";
import { file_google_protobuf_timestamp_timestamp } from "./gen/google/protobuf/timestamp/timestamp_pb.js";
import { file_http_types } from "./gen/http_types_pb.js";
import { file_identity } from "./gen/identity_pb.js";
import { file_meta } from "./gen/meta_pb.js";
import { file_net } from "./gen/net_pb.js";

const UPSTREAM_MODULE = "github.com/linkerd/linkerd2-proxy-api@v0.20.0";
const FILES = [
  "destination.proto",
  "net.proto",
  "meta.proto",
  "http_types.proto",
  "google/protobuf/duration.proto",
  "identity.proto",
  "google/protobuf/timestamp/timestamp.proto",
];
const pkgDir = fileURLToPath(new URL("..", import.meta.url));
const buf = join(pkgDir, "node_modules", ".bin", "buf");

function hasGo(): boolean {
  try {
    execFileSync("go", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const goAvailable = hasGo();
if (!goAvailable) {
  console.warn(
    [
      "",
      "!!! SKIPPING the proto schema conformance test: `go` is not on PATH.",
      `!!! It downloads ${UPSTREAM_MODULE} with \`go mod download\` and compares`,
      "!!! our schema against it. Install Go (https://go.dev/dl/) to run it; CI must have it.",
      "",
    ].join("\n"),
  );
}

/** Downloads (or finds in the module cache) upstream and returns its proto/ directory. */
function upstreamProtoDir(workDir: string): string {
  let stdout: string;
  try {
    // In an empty temp dir so that no surrounding go.mod is consulted.
    stdout = execFileSync("go", ["mod", "download", "-json", UPSTREAM_MODULE], {
      cwd: workDir,
      env: { ...process.env, GOFLAGS: "-mod=mod" },
      encoding: "utf8",
    });
  } catch (err) {
    const out = (err as { stdout?: string }).stdout ?? "";
    throw new Error(`go mod download ${UPSTREAM_MODULE} failed (network or GOPROXY?):\n${out}`);
  }
  const info = JSON.parse(stdout) as { Dir?: string; Error?: string };
  if (info.Dir === undefined) throw new Error(`go mod download: ${info.Error ?? stdout}`);
  return join(info.Dir, "proto");
}

/** Compiles FILES under `root` (plus their imports) into FileDescriptorProtos. */
function bufBuild(root: string, outFile: string): FileDescriptorProto[] {
  const paths = FILES.flatMap((f) => ["--path", join(root, f)]);
  execFileSync(
    buf,
    ["build", root, ...paths, "--as-file-descriptor-set", "--exclude-source-info", "-o", outFile],
    { cwd: root, stdio: ["ignore", "inherit", "pipe"] },
  );
  return fromBinary(FileDescriptorSetSchema, readFileSync(outFile)).file;
}

/** Fails with every difference listed, one per line, so a single run shows them all. */
function expectNoDifferences(diffs: string[]): void {
  if (diffs.length > 0) {
    expect.fail(`${diffs.length} schema difference(s) from upstream:\n  ${diffs.join("\n  ")}`);
  }
}

describe.skipIf(!goAvailable)(`schema conformance with ${UPSTREAM_MODULE}`, () => {
  let workDir = "";
  let upstream: FileDescriptorProto[] = [];

  beforeAll(() => {
    workDir = mkdtempSync(join(tmpdir(), "proto-conformance-"));
    upstream = bufBuild(upstreamProtoDir(workDir), join(workDir, "upstream.binpb"));
  });
  afterAll(() => {
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it("upstream compiles to exactly the seven files we mirror", () => {
    expect(upstream.map((f) => f.name).sort()).toEqual([...FILES].sort());
  });

  it("our .proto files compile to the same descriptors (options included)", () => {
    const ours = bufBuild(join(pkgDir, "proto"), join(workDir, "ours.binpb"));
    expectNoDifferences(diffFileDescriptorSets(upstream, ours));
  });

  it("the generated code embeds the same descriptors", () => {
    const embedded: DescFile[] = [
      file_destination,
      file_net,
      file_meta,
      file_http_types,
      file_identity,
      file_google_protobuf_timestamp_timestamp,
      // protobuf-es's own Duration, which the generated code imports.
      file_google_protobuf_duration,
    ];
    const diffs = diffFileDescriptorSets(
      upstream,
      embedded.map((f) => f.proto),
      (name) => ({ ignoreFileOptions: name === "google/protobuf/duration.proto" }),
    );
    expectNoDifferences(diffs);
  });
});
