// Shared by the tests of this package only; not part of the public API.
import {
  type Address,
  type AddressId,
  type AddressSet,
  addressIdKey,
  type Logger,
  newAddress,
  type Pod,
} from "@destination/core";
import type { EndpointTranslatorConfig, MessageSink } from "../../src/contracts.js";

export const config: EndpointTranslatorConfig = {
  controllerNamespace: "linkerd",
  identityTrustDomain: "trust.domain",
  enableH2Upgrade: true,
  forceOpaqueTransport: false,
  extEndpointZoneWeights: false,
  defaultOpaquePorts: new Set(),
};

export function podAddress(ip: string, port: number, pod: Pod, extra: Partial<Address> = {}) {
  return newAddress({
    ip,
    port,
    pod,
    ownerKind: "replicationcontroller",
    ownerName: "rc-name",
    ...extra,
  });
}

export function addressSet(
  addresses: readonly Address[],
  labels: Record<string, string> = { namespace: "service-ns", service: "service-name" },
): AddressSet {
  const map = new Map<string, { id: AddressId; address: Address }>();
  addresses.forEach((address, i) => {
    const id: AddressId = { namespace: "ns", name: `a${i}`, ipFamily: "" };
    map.set(addressIdKey(id), { id, address });
  });
  return { addresses: map, labels };
}

export function collectingSink<T>(accept = true): MessageSink<T> & { readonly sent: T[] } {
  const sent: T[] = [];
  return {
    sent,
    send(message: T) {
      sent.push(message);
      return accept;
    },
  };
}

export interface LogEntry {
  level: "debug" | "info" | "warn" | "error";
  message: string;
  fields: Record<string, unknown> | undefined;
}

export function recordingLogger(): Logger & { readonly entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at = (level: LogEntry["level"]) => (message: string, fields?: Record<string, unknown>) => {
    entries.push({ level, message, fields });
  };
  return { entries, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** Top-level fields of an encoded message: number and payload length (-1 if not length-delimited). */
export function wireFields(bytes: Uint8Array): { field: number; length: number }[] {
  const out: { field: number; length: number }[] = [];
  let i = 0;
  const varint = () => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[i++] ?? 0;
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
    }
  };
  while (i < bytes.length) {
    const tag = varint();
    const wireType = tag & 7;
    const field = Math.floor(tag / 8);
    if (wireType === 0) {
      varint();
      out.push({ field, length: -1 });
    } else if (wireType === 1) {
      i += 8;
      out.push({ field, length: -1 });
    } else if (wireType === 5) {
      i += 4;
      out.push({ field, length: -1 });
    } else if (wireType === 2) {
      const length = varint();
      i += length;
      out.push({ field, length });
    } else {
      throw new Error(`unexpected wire type ${wireType}`);
    }
  }
  return out;
}
