// A hand-written binary encoder for `Update`, the message every Get stream starts with. It writes
// exactly what protobuf-es `toBinary(UpdateSchema, …)` writes (fields in number order, proto3
// zero values left out, map entries in key order, unknown fields last), through the same
// BinaryWriter, but without the per-field reflection: in profiles of cold Gets, encoding the
// first `add` cost about as much as translating it. `update-binary.test.ts` compares the two on
// random messages. Sub-messages that are rare or the same for every address (`http2`,
// `resource_ref`) are delegated to `toBinary`, the shared `http2` encoded once per object.
import { type Message, toBinary } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import {
  type AddrSet,
  type Http2ClientParams,
  Http2ClientParamsSchema,
  type ProtocolHint,
  type TlsIdentity,
  type TlsIdentity_DnsLikeIdentity,
  type Update,
  UpdateSchema,
  type WeightedAddr,
  type WeightedAddrSet,
} from "./gen/destination_pb.js";
import { MetadataSchema } from "./gen/meta_pb.js";
import type { IPAddress, TcpAddress } from "./gen/net_pb.js";

const LEN = WireType.LengthDelimited;

// One writer for every call: its buffer stays grown, so a large add is not regrown from 128
// bytes each time (`finish` copies the bytes out and rewinds it).
let shared = new BinaryWriter();

/** Encodes an Update exactly as `toBinary(UpdateSchema, update)` does. */
export function updateToBinary(update: Update): Uint8Array {
  // Anything but a plain Update (a foreign message) gets toBinary's own error.
  if (update.$typeName !== UpdateSchema.typeName) return toBinary(UpdateSchema, update);
  try {
    writeUpdate(shared, update);
  } catch (err) {
    // A value the writer refuses leaves it mid-message: start the next call afresh.
    shared = new BinaryWriter();
    throw err;
  }
  return shared.finish();
}

function writeUpdate(w: BinaryWriter, update: Update): void {
  const u = update.update;
  switch (u.case) {
    case "add":
      w.tag(1, LEN).fork();
      weightedAddrSet(w, u.value);
      w.join();
      break;
    case "remove":
      w.tag(2, LEN).fork();
      addrSet(w, u.value);
      w.join();
      break;
    case "noEndpoints":
      w.tag(3, LEN).fork();
      if (u.value.exists !== false) w.tag(1, WireType.Varint).bool(u.value.exists);
      unknownFields(w, u.value);
      w.join();
      break;
  }
  unknownFields(w, update);
}

function weightedAddrSet(w: BinaryWriter, set: WeightedAddrSet): void {
  for (const addr of set.addrs) {
    w.tag(1, LEN).fork();
    weightedAddr(w, addr);
    w.join();
  }
  stringMap(w, 2, set.metricLabels);
  unknownFields(w, set);
}

function addrSet(w: BinaryWriter, set: AddrSet): void {
  for (const addr of set.addrs) {
    w.tag(1, LEN).fork();
    tcpAddress(w, addr);
    w.join();
  }
  unknownFields(w, set);
}

function weightedAddr(w: BinaryWriter, wa: WeightedAddr): void {
  if (wa.addr !== undefined) {
    w.tag(1, LEN).fork();
    tcpAddress(w, wa.addr);
    w.join();
  }
  if (wa.weight !== 0) w.tag(3, WireType.Varint).uint32(wa.weight);
  stringMap(w, 4, wa.metricLabels);
  if (wa.tlsIdentity !== undefined) {
    w.tag(5, LEN).fork();
    tlsIdentity(w, wa.tlsIdentity);
    w.join();
  }
  if (wa.protocolHint !== undefined) {
    w.tag(6, LEN).fork();
    protocolHint(w, wa.protocolHint);
    w.join();
  }
  if (wa.authorityOverride !== undefined) {
    w.tag(7, LEN).fork();
    const value = wa.authorityOverride.authorityOverride;
    if (value !== "") w.tag(1, LEN).string(value);
    unknownFields(w, wa.authorityOverride);
    w.join();
  }
  if (wa.http2 !== undefined) w.tag(8, LEN).bytes(http2Bytes(wa.http2));
  if (wa.resourceRef !== undefined) {
    w.tag(9, LEN).bytes(toBinary(MetadataSchema, wa.resourceRef));
  }
  unknownFields(w, wa);
}

function tcpAddress(w: BinaryWriter, addr: TcpAddress): void {
  if (addr.ip !== undefined) {
    w.tag(1, LEN).fork();
    ipAddress(w, addr.ip);
    w.join();
  }
  if (addr.port !== 0) w.tag(2, WireType.Varint).uint32(addr.port);
  unknownFields(w, addr);
}

function ipAddress(w: BinaryWriter, ip: IPAddress): void {
  const v = ip.ip;
  if (v.case === "ipv4") {
    w.tag(1, WireType.Bit32).fixed32(v.value);
  } else if (v.case === "ipv6") {
    w.tag(2, LEN).fork();
    if (v.value.first !== 0n) w.tag(1, WireType.Bit64).fixed64(v.value.first);
    if (v.value.last !== 0n) w.tag(2, WireType.Bit64).fixed64(v.value.last);
    unknownFields(w, v.value);
    w.join();
  }
  unknownFields(w, ip);
}

function tlsIdentity(w: BinaryWriter, id: TlsIdentity): void {
  const s = id.strategy;
  if (s.case === "dnsLikeIdentity") {
    w.tag(1, LEN).fork();
    dnsLikeIdentity(w, s.value);
    w.join();
  } else if (s.case === "uriLikeIdentity") {
    w.tag(3, LEN).fork();
    if (s.value.uri !== "") w.tag(1, LEN).string(s.value.uri);
    unknownFields(w, s.value);
    w.join();
  }
  if (id.serverName !== undefined) {
    w.tag(4, LEN).fork();
    dnsLikeIdentity(w, id.serverName);
    w.join();
  }
  unknownFields(w, id);
}

function dnsLikeIdentity(w: BinaryWriter, id: TlsIdentity_DnsLikeIdentity): void {
  if (id.name !== "") w.tag(1, LEN).string(id.name);
  unknownFields(w, id);
}

function protocolHint(w: BinaryWriter, hint: ProtocolHint): void {
  const p = hint.protocol;
  if (p.case === "h2") {
    w.tag(1, LEN).fork();
    unknownFields(w, p.value);
    w.join();
  }
  if (hint.opaqueTransport !== undefined) {
    w.tag(2, LEN).fork();
    const port = hint.opaqueTransport.inboundPort;
    if (port !== 0) w.tag(1, WireType.Varint).uint32(port);
    unknownFields(w, hint.opaqueTransport);
    w.join();
  }
  if (p.case === "opaque") {
    w.tag(3, LEN).fork();
    unknownFields(w, p.value);
    w.join();
  }
  unknownFields(w, hint);
}

/** `map<string, string>`: one entry per own key, key and value always written. */
function stringMap(w: BinaryWriter, fieldNo: number, map: { [key: string]: string }): void {
  for (const key of Object.keys(map)) {
    w.tag(fieldNo, LEN).fork();
    w.tag(1, LEN).string(key);
    w.tag(2, LEN).string(map[key] as string);
    w.join();
  }
}

// Every address of a server shares the configured params object: encoded once per object, as
// the server encodes each shared Update once (messages handed out are never changed).
const http2Cache = new WeakMap<Http2ClientParams, Uint8Array>();

function http2Bytes(params: Http2ClientParams): Uint8Array {
  let bytes = http2Cache.get(params);
  if (bytes === undefined) {
    bytes = toBinary(Http2ClientParamsSchema, params);
    http2Cache.set(params, bytes);
  }
  return bytes;
}

function unknownFields(w: BinaryWriter, message: Message): void {
  const unknown = message.$unknown;
  if (unknown === undefined) return;
  for (const { no, wireType, data } of unknown) w.tag(no, wireType).raw(data);
}
