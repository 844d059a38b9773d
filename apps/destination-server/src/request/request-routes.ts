import type { NamespacedName } from "@destination/core";
import { canonicalIP, goQuote } from "@destination/go-compat";
import { status as Status } from "@grpc/grpc-js";
import { StatusError } from "../grpc/status-error.js";
import { AuthorityError, parseAuthority, parseServiceName, ServiceNameError } from "./authority.js";

/** A `Get` for `<instance?>.<svc>.<ns>.svc.<domain>:<port>` (README "Get dispatch"). */
export interface GetRoute {
  readonly service: NamespacedName;
  readonly port: number;
  /** The instance hostname, or "". */
  readonly instance: string;
}

/** Where a `GetProfile` goes (README "GetProfile dispatch"). */
export type ProfileRoute =
  | {
      readonly kind: "service";
      readonly service: NamespacedName;
      readonly fqn: string;
      port: number;
    }
  | { readonly kind: "ip"; readonly ip: string; readonly port: number }
  | {
      readonly kind: "instance";
      readonly service: NamespacedName;
      readonly hostname: string;
      readonly port: number;
    };

const invalid = (details: string) => new StatusError(Status.INVALID_ARGUMENT, details);

/**
 * Routes a Get, or throws its StatusError (README "Errors"; "Invalid authority" is capitalised
 * in Get, as upstream).
 */
export function routeGet(path: string, clusterDomain: string): GetRoute {
  let authority: { host: string; port: number };
  try {
    authority = parseAuthority(path);
  } catch (err) {
    if (err instanceof AuthorityError) throw invalid(`Invalid authority: ${path}`);
    throw err;
  }
  if (canonicalIpLiteral(authority.host) !== undefined) {
    throw invalid(`IP queries not supported by Get API: host=${authority.host}`);
  }
  try {
    const name = parseServiceName(authority.host, clusterDomain);
    return {
      service: { namespace: name.namespace, name: name.name },
      port: authority.port,
      instance: name.instance,
    };
  } catch (err) {
    if (err instanceof ServiceNameError) throw invalid(`Invalid authority: ${path}`);
    throw err;
  }
}

/**
 * Routes a GetProfile, or throws its StatusError (README "Errors"; lower-case "invalid" and Go
 * `%q` quoting). `servicesByClusterIp` answers which Services own a cluster IP.
 */
export function routeGetProfile(
  path: string,
  clusterDomain: string,
  servicesByClusterIp: (ip: string) => readonly NamespacedName[],
): ProfileRoute {
  let authority: { host: string; port: number };
  try {
    authority = parseAuthority(path);
  } catch (err) {
    if (err instanceof AuthorityError) {
      throw invalid(`invalid authority: ${goQuote(path)}: ${goQuote(err.message)}`);
    }
    throw err;
  }
  const { host, port } = authority;
  const ip = canonicalIpLiteral(host);
  if (ip !== undefined) {
    const services = servicesByClusterIp(ip);
    if (services.length > 1) {
      throw new StatusError(
        Status.FAILED_PRECONDITION,
        `found ${services.length} services with conflicting cluster IP ${ip}`,
      );
    }
    const service = services[0];
    if (service === undefined) return { kind: "ip", ip, port };
    const fqn = `${service.name}.${service.namespace}.svc.${clusterDomain}`;
    return { kind: "service", service, fqn, port };
  }
  let name: ReturnType<typeof parseServiceName>;
  try {
    name = parseServiceName(host, clusterDomain);
  } catch (err) {
    if (err instanceof ServiceNameError) {
      throw invalid(`invalid service ${goQuote(host)}: ${goQuote(err.message)}`);
    }
    throw err;
  }
  const service = { namespace: name.namespace, name: name.name };
  if (name.instance === "") return { kind: "service", service, fqn: host, port };
  return { kind: "instance", service, hostname: name.instance, port };
}

/** Get on a Service the cache does not hold. */
export function getServiceNotFound(service: NamespacedName): StatusError {
  return new StatusError(
    Status.NOT_FOUND,
    `Service ${service.name}.${service.namespace} not found`,
  );
}

/** GetProfile's service flow on a missing Service: the informer's raw not-found text. */
export function profileServiceNotFound(service: NamespacedName): StatusError {
  return new StatusError(Status.UNKNOWN, `service ${goQuote(service.name)} not found`);
}

/** An ExternalName Service, on Get or on GetProfile for a port it defines. */
export function externalNameService(path: string): StatusError {
  return invalid(`Invalid authority: ${path}`);
}

// IP literals as Go's `net.ParseIP` reads them (README "Authorities"): go-compat's grammar,
// which refuses zones as Go does.

/**
 * The canonical text of an IP literal (compressed IPv6, IPv4-mapped as dotted IPv4: the keys
 * of every IP index), or undefined when `text` is a name.
 */
export function canonicalIpLiteral(text: string): string | undefined {
  // Every Get's host comes here: a name is told apart first by what no IP literal has (IPv6 has
  // a colon, IPv4 only digits and dots).
  if (!text.includes(":") && !IPV4_CHARACTERS.test(text)) return undefined;
  return canonicalIP(text);
}

const IPV4_CHARACTERS = /^[0-9.]+$/;
