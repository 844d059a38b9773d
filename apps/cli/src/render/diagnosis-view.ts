// `dst diagnose` for people: the Service, then each EndpointSlice as a table of its addresses
// with the pod behind each and whether the server hands it to proxies for the asked port, and
// the filtering every subscriber gets on top.
import type {
  AddressView,
  EndpointsReportView,
  EndpointView,
  ServiceView,
  SliceView,
} from "../diagnose/admin-endpoints.js";
import type { ServiceAuthority } from "../diagnose/service-authority.js";
import type { Styles } from "./styles.js";
import { formatTable, type TableRow } from "./text-table.js";

const NONE = "-";

function fieldLines(fields: readonly (readonly [string, string])[], styles: Styles): string {
  const width = Math.max(...fields.map(([label]) => label.length));
  return fields.map(([label, value]) => `${styles.bold(label.padEnd(width))}  ${value}\n`).join("");
}

const indent = (text: string) =>
  text
    .split("\n")
    .map((line) => (line === "" ? line : `  ${line}`))
    .join("\n");

function portsText(service: ServiceView): string {
  if (service.ports.length === 0) return "none";
  return service.ports
    .map((p) => {
      const named = p.name === "" ? "" : ` (${p.name})`;
      return `${p.port}/${p.protocol}${named} → ${p.targetPort ?? p.port}`;
    })
    .join(", ");
}

function subscribersText(report: EndpointsReportView): string {
  const subscribers = report.subscribers;
  if (subscribers === null) return "unknown";
  const streams = `${subscribers.total} Get stream${subscribers.total === 1 ? "" : "s"}`;
  if (subscribers.ports.length === 0) return streams;
  return `${streams} (${subscribers.ports.map((p) => `port ${p.port}: ${p.subscribers}`).join(", ")})`;
}

function serviceLines(report: EndpointsReportView, asked: ServiceAuthority, styles: Styles) {
  const { service } = report;
  const name = `${asked.namespace}/${asked.name}`;
  if (service === null) {
    return fieldLines(
      [
        ["service", `${name} ${styles.red("(not in the cache)")}`],
        ["subscribers", subscribersText(report)],
      ],
      styles,
    );
  }
  const declared = service.ports.some((p) => p.port === asked.port);
  return fieldLines(
    [
      ["service", name],
      ["type", service.type],
      ["cluster IPs", service.clusterIPs.join(", ") || NONE],
      ["ports", portsText(service)],
      [
        "asked port",
        declared
          ? String(asked.port)
          : `${asked.port} ${styles.yellow("(not declared by the Service: served as a target port number)")}`,
      ],
      ["subscribers", subscribersText(report)],
    ],
    styles,
  );
}

/** Whether the slice serves the asked port; unknowable (true) without the Service. */
function servesAskedPort(slice: SliceView, report: EndpointsReportView, port: number): boolean {
  const declared = report.service?.ports.some((p) => p.port === port) ?? false;
  if (!declared) return true;
  return slice.servesPorts.some((p) => p.servicePort === port);
}

function podText(endpoint: EndpointView, address: AddressView): string {
  if (address.pod !== null) return address.pod.name;
  const ref = endpoint.targetRef;
  if (ref === null) return NONE;
  return ref.kind === "Pod" ? ref.name : `${ref.kind.toLowerCase()}/${ref.name}`;
}

function verdict(address: AddressView, servesPort: boolean, styles: Styles): string {
  if (!address.served) return styles.red(`no: ${address.reason ?? "unknown reason"}`);
  if (!servesPort) return styles.red("no: no matching port");
  return styles.green("yes");
}

function sliceSection(
  slice: SliceView,
  report: EndpointsReportView,
  asked: ServiceAuthority,
  styles: Styles,
): string {
  const servesPort = servesAskedPort(slice, report, asked.port);
  const ports = slice.ports.map((p) => `${p.name === "" ? "" : `${p.name}=`}${p.port ?? "?"}`);
  const serves = slice.servesPorts.map((p) => `${p.servicePort} → ${p.port}`);
  const heading = [
    `${styles.bold(`EndpointSlice ${slice.name}`)}  ${slice.addressType}`,
    `ports ${ports.join(", ") || NONE}`,
    ...(report.service === null ? [] : [`serves ${serves.join(", ") || "no Service port"}`]),
  ].join("  ");
  const rows: TableRow[] = slice.endpoints.flatMap((endpoint) =>
    endpoint.addresses.map((address) => ({
      cells: [
        address.address,
        podText(endpoint, address),
        address.pod?.phase ?? NONE,
        address.pod?.node ?? endpoint.nodeName ?? NONE,
        address.pod === null ? NONE : `${address.pod.owner.kind}/${address.pod.owner.name}`,
        endpoint.zone ?? NONE,
        endpoint.hints === null ? NONE : endpoint.hints.forZones.join(",") || NONE,
        verdict(address, servesPort, styles),
      ],
    })),
  );
  const table =
    rows.length === 0
      ? `${styles.dim("(no endpoints)")}\n`
      : formatTable(
          ["ADDRESS", "POD", "PHASE", "NODE", "OWNER", "ZONE", "HINTS", `SERVED ON ${asked.port}`],
          rows,
          styles.bold,
        );
  return `${heading}\n${indent(table)}`;
}

/** How many listed addresses the server hands to proxies for the asked port. */
function summary(report: EndpointsReportView, asked: ServiceAuthority): string {
  let listed = 0;
  let served = 0;
  for (const slice of report.endpointSlices) {
    const servesPort = servesAskedPort(slice, report, asked.port);
    for (const endpoint of slice.endpoints) {
      for (const address of endpoint.addresses) {
        listed += 1;
        if (address.served && servesPort) served += 1;
      }
    }
  }
  return `${served} of ${listed} listed address${listed === 1 ? "" : "es"} served on port ${asked.port}`;
}

export function formatDiagnosis(
  report: EndpointsReportView,
  asked: ServiceAuthority,
  styles: Styles,
): string {
  const sections = [serviceLines(report, asked, styles)];
  if (report.endpointSlices.length === 0) {
    sections.push(`${styles.dim("(no EndpointSlices for this Service)")}\n`);
  }
  for (const slice of report.endpointSlices)
    sections.push(sliceSection(slice, report, asked, styles));
  const notes = report.notes.map((note) => `  - ${note}\n`).join("");
  sections.push(
    `${styles.bold(summary(report, asked))}\n${notes === "" ? "" : `${styles.bold("notes:")}\n${notes}`}`,
  );
  return sections.join("\n");
}
