// The chart's security context for the `destination` container, as our image meets it: the
// image's USER is the uid the chart runs as, and the built server, started with the container's
// args as that uid (with the image's group) on a read-only root file system and no home, becomes
// ready and answers the chart's probes. Needs root (a mount namespace with `/` remounted
// read-only, then setpriv); the remount is private to that namespace.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseManifests } from "@destination/k8s-env";
import { describe, expect, it } from "vitest";
import { type DestinationContainer, destinationContainer } from "../src/destination-container.js";
import { linkerdRelease, NO_RELEASE } from "../src/linkerd-release.js";

const release = linkerdRelease();
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const isRoot = process.getuid?.() === 0;

function chartContainer(): DestinationContainer {
  if (!release) throw new Error(NO_RELEASE);
  return destinationContainer(parseManifests(readFileSync(release.rendered.controlPlane, "utf8")));
}

/** `USER uid:gid` of the Dockerfile's runtime stage. */
function imageUser(): { uid: number; gid: number } {
  const match = /^USER (\d+):(\d+)$/m.exec(readFileSync(`${ROOT}Dockerfile`, "utf8"));
  if (!match) throw new Error("the Dockerfile has no numeric USER uid:gid");
  return { uid: Number(match[1]), gid: Number(match[2]) };
}

describe.skipIf(!release)(
  `the chart's security context${release ? "" : ` (skipped: ${NO_RELEASE})`}`,
  () => {
    it("runs as the image's numeric, non-root user", () => {
      const securityContext = chartContainer().securityContext ?? {};
      const user = imageUser();
      expect(securityContext.runAsNonRoot).toBe(true);
      expect(securityContext.readOnlyRootFilesystem).toBe(true);
      expect(securityContext.runAsUser).toBe(user.uid);
      expect(user.uid).not.toBe(0);
      // The chart sets no group: the runtime takes the uid's group from the image's /etc/passwd,
      // which the Dockerfile writes for this uid.
      expect(securityContext.runAsGroup).toBeUndefined();
      expect(readFileSync(`${ROOT}Dockerfile`, "utf8")).toContain(
        `useradd --uid ${user.uid} --gid ${user.gid}`,
      );
    });

    it.skipIf(!isRoot)(
      "starts and answers the probes as that user on a read-only root file system",
      async () => {
        const container = chartContainer();
        const { uid, gid } = imageUser();
        // The container's args, then loopback ports, JSON logs and the example manifests in place
        // of a cluster (later flags win).
        const server = [
          process.execPath,
          `${ROOT}apps/destination-server/bin/destination-server.js`,
          ...(container.args ?? []),
          "-addr=127.0.0.1:0",
          "-metrics-addr=127.0.0.1:0",
          "-log-format=json",
          `--manifests=${ROOT}examples`,
        ];
        const script = [
          "mount -o remount,bind,ro / || exit 90",
          // Proof that the file system is read-only where the server could write.
          `for d in / /tmp ${ROOT}; do if touch "$d/.deploy-e2e-probe" 2>/dev/null; then exit 91; fi; done`,
          `exec setpriv --reuid ${uid} --regid ${gid} --clear-groups -- env -i NODE_ENV=production "$@"`,
        ].join("\n");
        const child = spawn("unshare", ["--mount", "sh", "-c", script, "sh", ...server], {
          stdio: ["ignore", "ignore", "pipe"],
        });
        let stderr = "";
        const exit = new Promise<number | null>((resolve) => child.on("exit", resolve));
        const ready = await new Promise<{ adminPort: number }>((resolve, reject) => {
          child.stderr.setEncoding("utf8").on("data", (d: string) => {
            stderr += d;
            const match = /"msg":"ready".*"adminPort":(\d+)/.exec(stderr);
            if (match) resolve({ adminPort: Number(match[1]) });
          });
          void exit.then((code) => reject(new Error(`exited ${code} before ready:\n${stderr}`)));
        });
        try {
          const paths = [container.livenessProbe, container.readinessProbe].map(
            (probe) => probe?.httpGet?.path,
          );
          expect(paths).toEqual(["/ping", "/ready"]);
          for (const path of paths) {
            const res = await fetch(`http://127.0.0.1:${ready.adminPort}${path}`);
            expect(res.status, path).toBe(200);
          }
          expect(stderr).toContain('"msg":"starting"');
          expect(stderr).not.toMatch(/EROFS|EACCES|"level":"error"/);
        } finally {
          child.kill("SIGTERM");
        }
        expect(await exit).toBe(0);
      },
    );
  },
);
