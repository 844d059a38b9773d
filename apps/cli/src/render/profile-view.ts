// A DestinationProfile for people: one aligned field per line, routes and traffic split as
// tables, the endpoint of an ip:port profile with its labels, identity and hint.
import {
  create,
  type DestinationProfile,
  DestinationProfileSchema,
  durationToMs,
  equals,
  Http2ClientParamsSchema,
  type HttpMethod,
  HttpMethod_Registered,
  type HttpStatusRange,
  type Metadata,
  type RequestMatch,
  type ResponseMatch,
  type RetryBudget,
  type Route,
  toJsonString,
  type WeightedAddr,
  type WeightedDst,
} from "@destination/proto";
import { formatDurationMs } from "../duration.js";
import { endpointFields } from "../endpoints/endpoint-fields.js";
import type { Styles } from "./styles.js";
import { formatTable } from "./text-table.js";

const NONE = "-";
const INDENT = "  ";

/** Percent with at most two decimals; float32 ratios such as 0.2 read as 20%, not 20.0000003%. */
const percent = (fraction: number) => `${Number((fraction * 100).toFixed(2))}%`;

function fieldLines(fields: readonly (readonly [string, string])[], styles: Styles): string {
  const width = Math.max(...fields.map(([label]) => label.length));
  return fields.map(([label, value]) => `${styles.bold(label.padEnd(width))}  ${value}\n`).join("");
}

const indent = (text: string) =>
  text
    .split("\n")
    .map((line) => (line === "" ? line : INDENT + line))
    .join("\n");

export function metadataText(meta: Metadata | undefined): string {
  switch (meta?.kind.case) {
    case "default":
      return `default ${meta.kind.value}`;
    case "resource": {
      const r = meta.kind.value;
      // The default profile (no ServiceProfile) has a ref with only the group set, as upstream.
      if (r.kind === "" && r.name === "" && r.namespace === "") {
        return `${r.group || "?"} (no ServiceProfile: default profile)`;
      }
      const where = r.namespace === "" ? r.name : `${r.namespace}/${r.name}`;
      return [
        `${r.group || "core"}/${r.kind} ${where}`,
        r.port === 0 ? "" : ` port ${r.port}`,
        r.section === "" ? "" : ` section ${r.section}`,
      ].join("");
    }
    default:
      return NONE;
  }
}

function retryBudgetText(budget: RetryBudget | undefined): string {
  if (budget === undefined) return NONE;
  const ttl = budget.ttl === undefined ? "none" : formatDurationMs(durationToMs(budget.ttl));
  return `${percent(budget.retryRatio)} of requests, at least ${budget.minRetriesPerSecond}/s, ttl ${ttl}`;
}

function routesTable(routes: readonly Route[], styles: Styles): string {
  const rows = routes.map((route) => {
    const { route: name, ...otherLabels } = route.metricsLabels;
    const extra = Object.entries(otherLabels).map(([k, v]) => `${k}=${v}`);
    const classes = route.responseClasses.map(
      (rc) => `${responseMatchText(rc.condition)} → ${rc.isFailure ? "failure" : "success"}`,
    );
    return {
      cells: [
        requestMatchText(route.condition),
        [name ?? NONE, ...extra].join(" "),
        route.isRetryable ? "yes" : "no",
        route.timeout === undefined ? NONE : formatDurationMs(durationToMs(route.timeout)),
        classes.length === 0 ? NONE : classes.join("; "),
      ],
    };
  });
  return formatTable(
    ["CONDITION", "NAME", "RETRYABLE", "TIMEOUT", "RESPONSE CLASSES"],
    rows,
    styles.bold,
  );
}

function overridesTable(overrides: readonly WeightedDst[], styles: Styles): string {
  const total = overrides.reduce((sum, dst) => sum + dst.weight, 0);
  const rows = overrides.map((dst) => ({
    cells: [dst.authority, total === 0 ? NONE : percent(dst.weight / total), String(dst.weight)],
  }));
  return formatTable(["AUTHORITY", "SHARE", "WEIGHT"], rows, styles.bold);
}

function endpointSection(endpoint: WeightedAddr, styles: Styles): string {
  const f = endpointFields(endpoint);
  const labels = Object.entries(endpoint.metricLabels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`);
  const fields: [string, string][] = [
    ["address", f.ip.includes(":") ? `[${f.ip}]:${f.port}` : `${f.ip}:${f.port}`],
    ["pod", f.pod],
    ["owner", f.owner],
    ["identity", f.identity],
    ["protocol hint", f.protocolHint],
    ["weight", String(endpoint.weight)],
    ["labels", labels.length === 0 ? NONE : labels.join(", ")],
  ];
  if (f.authorityOverride !== "") fields.push(["authority override", f.authorityOverride]);
  if (endpoint.http2 !== undefined) {
    fields.push(["http2", toJsonString(Http2ClientParamsSchema, endpoint.http2)]);
  }
  return fieldLines(fields, styles);
}

const EMPTY_PROFILE = create(DestinationProfileSchema);

export function formatProfile(profile: DestinationProfile, styles: Styles): string {
  if (equals(DestinationProfileSchema, profile, EMPTY_PROFILE)) {
    return `${styles.dim("empty profile: the service does not define this port (the proxy uses the policy API instead)")}\n`;
  }
  const summary = fieldLines(
    [
      ["fully qualified name", profile.fullyQualifiedName || NONE],
      ["opaque protocol", profile.opaqueProtocol ? "yes" : "no"],
      ["retry budget", retryBudgetText(profile.retryBudget)],
      ["parent", metadataText(profile.parentRef)],
      ["profile", metadataText(profile.profileRef)],
    ],
    styles,
  );
  const sections = [
    summary,
    profile.routes.length === 0
      ? `${styles.bold("routes:")} none\n`
      : `${styles.bold("routes:")}\n${indent(routesTable(profile.routes, styles))}`,
    profile.dstOverrides.length === 0
      ? `${styles.bold("dst overrides:")} none\n`
      : `${styles.bold("dst overrides:")}\n${indent(overridesTable(profile.dstOverrides, styles))}`,
  ];
  if (profile.endpoint !== undefined) {
    sections.push(
      `${styles.bold("endpoint:")}\n${indent(endpointSection(profile.endpoint, styles))}`,
    );
  }
  return sections.join("");
}

// Route conditions in one line: `GET /books/[^/]*`, `any(POST, PUT)`, `status 500-599`.
function methodText(method: HttpMethod): string {
  switch (method.type.case) {
    case "registered":
      return HttpMethod_Registered[method.type.value] ?? `method ${method.type.value}`;
    case "unregistered":
      return method.type.value;
    default:
      return "method ?";
  }
}

export function requestMatchText(match: RequestMatch | undefined): string {
  switch (match?.match.case) {
    case "path":
      return match.match.value.regex === "" ? 'path ""' : match.match.value.regex;
    case "method":
      return methodText(match.match.value);
    case "not":
      return `not(${requestMatchText(match.match.value)})`;
    case "all": {
      const children = match.match.value.matches;
      // The common `{method, pathRegex}` condition reads best as an HTTP request line.
      const leaves = children.every((c) => c.match.case === "method" || c.match.case === "path");
      const texts = children.map(requestMatchText);
      return leaves && texts.length > 0 ? texts.join(" ") : `all(${texts.join(", ")})`;
    }
    case "any":
      return `any(${match.match.value.matches.map(requestMatchText).join(", ")})`;
    default:
      return "(no condition)";
  }
}

function statusText({ min, max }: HttpStatusRange): string {
  if (min === 0 && max === 0) return "any status";
  if (max === 0) return `status >=${min}`;
  if (min === 0) return `status <=${max}`;
  return min === max ? `status ${min}` : `status ${min}-${max}`;
}

export function responseMatchText(match: ResponseMatch | undefined): string {
  switch (match?.match.case) {
    case "status":
      return statusText(match.match.value);
    case "not":
      return `not(${responseMatchText(match.match.value)})`;
    case "all":
      return `all(${match.match.value.matches.map(responseMatchText).join(", ")})`;
    case "any":
      return `any(${match.match.value.matches.map(responseMatchText).join(", ")})`;
    default:
      return "(no condition)";
  }
}
