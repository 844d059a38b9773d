import type { Pod } from "./objects/core.js";
import type { ExternalWorkload } from "./objects/linkerd.js";

/**
 * The identity of an address inside a set, compared on all three fields. Pod addresses carry the
 * slice's address family, so a dual-stack pod is two entries; ExternalWorkload addresses and
 * addresses without a target use `""`. See README "Addresses and address sets".
 */
export interface AddressId {
  readonly namespace: string;
  readonly name: string;
  readonly ipFamily: "IPv4" | "IPv6" | "FQDN" | "";
}

/** Structural key of an AddressId, for use in Maps. */
export function addressIdKey(id: AddressId): string {
  return `${id.namespace}/${id.name}/${id.ipFamily}`;
}

/** One endpoint with one port. */
export interface Address {
  /** As written in the Endpoints or slice; for FQDN slices a DNS name. */
  readonly ip: string;
  readonly port: number;
  readonly pod: Pod | null;
  readonly externalWorkload: ExternalWorkload | null;
  readonly ownerKind: string;
  readonly ownerName: string;
  /** Gateway identity of a service-mirror endpoint (no targetRef); may be "". */
  readonly identity: string;
  /** `<fq name>:<port>` for mirrored endpoints with `mirror.linkerd.io/remote-svc-fq-name`. */
  readonly authorityOverride: string;
  readonly zone: string | null;
  readonly forZones: readonly { readonly name: string }[];
  /** Set by a Server with `proxyProtocol: opaque`; annotation opacity is the translators' job. */
  readonly opaqueProtocol: boolean;
  readonly hostname: string | null;
}

/** An address with every optional field at its empty value. */
export function newAddress(fields: Pick<Address, "ip" | "port"> & Partial<Address>): Address {
  return {
    pod: null,
    externalWorkload: null,
    ownerKind: "",
    ownerName: "",
    identity: "",
    authorityOverride: "",
    zone: null,
    forZones: [],
    opaqueProtocol: false,
    hostname: null,
    ...fields,
  };
}

/**
 * A snapshot handed to listeners: a listener may keep it, and the watcher never changes it
 * afterwards. Keys are `addressIdKey(id)`.
 */
export interface AddressSet {
  readonly addresses: ReadonlyMap<string, AddressSetEntry>;
  /** Metric labels for the whole set: `service`, `namespace`, and `target_*` when mirrored. */
  readonly labels: Readonly<Record<string, string>>;
}

export interface AddressSetEntry {
  readonly id: AddressId;
  readonly address: Address;
}

export function emptyAddressSet(labels: Record<string, string> = {}): AddressSet {
  return { addresses: new Map(), labels };
}
