import { describe, expect, it } from "vitest";
import {
  gatewayAddress,
  meshedPod,
  opaquePod,
  WEB_IDENTITY,
} from "../../test/support/sample-messages.js";
import { formatEndpointTable } from "./endpoint-table.js";
import { colorStyles, plainStyles } from "./styles.js";

/** Cells of each line, split on the two-space column gaps. */
const cellsOf = (table: string) =>
  table
    .trimEnd()
    .split("\n")
    .map((line) => line.trim().split(/ {2,}/));

describe("formatEndpointTable", () => {
  it("shows a meshed pod: owner from its labels, identity, h2 and its zone locality", () => {
    const table = formatEndpointTable([{ endpoint: meshedPod }], {
      styles: plainStyles,
      showMarks: false,
    });
    expect(cellsOf(table)).toEqual([
      ["IP", "PORT", "POD", "OWNER", "IDENTITY", "PROTOCOL HINT", "ZONE"],
      [
        "10.244.0.12",
        "8080",
        "web-5d9f8c6b7-x2x4p",
        "deployment/web",
        WEB_IDENTITY,
        "h2",
        "zone-a (local)",
      ],
    ]);
  });

  it("shows opaque transport with the proxy's inbound port", () => {
    const table = formatEndpointTable([{ endpoint: opaquePod }], {
      styles: plainStyles,
      showMarks: false,
    });
    expect(cellsOf(table)[1]).toEqual([
      "10.244.0.9",
      "3306",
      "db-0",
      "statefulset/db",
      "default.emojivoto.serviceaccount.identity.linkerd.cluster.local",
      "opaque, opaque-transport:4143",
      "-",
    ]);
  });

  it("adds the authority override column only when a (pod-less gateway) row has one", () => {
    const table = formatEndpointTable([{ endpoint: gatewayAddress }, { endpoint: meshedPod }], {
      styles: plainStyles,
      showMarks: false,
    });
    expect(table).toBe(
      [
        "IP           PORT  POD                  OWNER           IDENTITY                                                                            PROTOCOL HINT  ZONE            AUTHORITY OVERRIDE",
        "172.18.0.4   4143  -                    -               linkerd-gateway.linkerd-multicluster.serviceaccount.identity.linkerd.cluster.local  h2             -               web-svc.emojivoto.svc.cluster.local:80",
        `10.244.0.12  8080  web-5d9f8c6b7-x2x4p  deployment/web  ${WEB_IDENTITY}                         h2             zone-a (local)  -`,
        "",
      ].join("\n"),
    );
  });

  it("marks added, changed and removed rows, and colors them only with color styles", () => {
    const rows = [
      { endpoint: meshedPod, mark: "added" as const },
      { endpoint: opaquePod, mark: "removed" as const },
      { endpoint: gatewayAddress, mark: "changed" as const },
    ];
    const plain = formatEndpointTable(rows, { styles: plainStyles, showMarks: true });
    expect(plain.split("\n").map((line) => line.slice(0, 3))).toEqual([
      "   ",
      "+  ",
      "-  ",
      "~  ",
      "",
    ]);
    expect(plain).not.toContain("\x1b");

    // Colored output is the plain line wrapped whole, so alignment is unchanged.
    const colored = formatEndpointTable(rows, { styles: colorStyles, showMarks: true }).split("\n");
    const lines = plain.split("\n");
    expect(colored.slice(0, 4)).toEqual([
      colorStyles.bold(lines[0] ?? ""),
      colorStyles.green(lines[1] ?? ""),
      colorStyles.red(lines[2] ?? ""),
      colorStyles.yellow(lines[3] ?? ""),
    ]);
  });

  it("puts leading columns (authority, namespace, service) first", () => {
    const table = formatEndpointTable(
      [
        {
          endpoint: meshedPod,
          leading: ["web-svc.emojivoto.svc.cluster.local:80", "emojivoto", "web-svc"],
        },
      ],
      {
        styles: plainStyles,
        showMarks: false,
        leadingHeaders: ["AUTHORITY", "NAMESPACE", "SERVICE"],
      },
    );
    expect(cellsOf(table).map((cells) => cells.slice(0, 5))).toEqual([
      ["AUTHORITY", "NAMESPACE", "SERVICE", "IP", "PORT"],
      ["web-svc.emojivoto.svc.cluster.local:80", "emojivoto", "web-svc", "10.244.0.12", "8080"],
    ]);
  });

  it("prints just the header for an empty set", () => {
    expect(formatEndpointTable([], { styles: plainStyles, showMarks: false })).toBe(
      "IP  PORT  POD  OWNER  IDENTITY  PROTOCOL HINT  ZONE\n",
    );
  });
});
