// A hand-written binary encoder for `Update`, the message every Get stream starts with. It writes
// exactly what protobuf-es `toBinary(UpdateSchema, …)` writes (fields in number order, proto3
// zero values left out, map entries in key order, unknown fields last), in two passes and one
// allocation: the first pass measures every length-delimited value, the second writes into a
// Buffer of exactly that size, with room for the gRPC frame's prefix if asked. That saves
// BinaryWriter's work per sub-message (a fork, a join that shifts every payload of 128 bytes or
// more), its copy out and the copy into a frame. Text, most of an Update's bytes, is taken to be
// ASCII when short and checked while it is copied (see `exact`). `update-binary.test.ts`
// compares this encoder with toBinary on random messages. Sub-messages that are rare or the
// same for every address (`http2`, `resource_ref`) are delegated to `toBinary`, the shared
// `http2` encoded once per object. A value the fast path does not expect (a uint32 out of
// range, a string that is not a string, …) sends the whole message to `toBinary`, for its bytes
// or its error.
import { toBinary, type UnknownField } from "@bufbuild/protobuf";
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

/** Bytes before the message in a gRPC frame: the compressed flag and a big-endian length. */
const FRAME_PREFIX = 5;

/** Encodes an Update exactly as `toBinary(UpdateSchema, update)` does. */
export function updateToBinary(update: Update): Buffer {
  return encode(update, 0);
}

/**
 * The gRPC frame of an Update (uncompressed flag, big-endian length, then the bytes
 * `updateToBinary` gives), in one allocation.
 */
export function updateToFrame(update: Update): Buffer {
  return encode(update, FRAME_PREFIX);
}

// Tags of the fields written here, all with field numbers below 16 and so a single byte.
const TAG1_LEN = 0x0a;
const TAG2_LEN = 0x12;
const TAG3_LEN = 0x1a;
const TAG4_LEN = 0x22;
const TAG5_LEN = 0x2a;
const TAG6_LEN = 0x32;
const TAG7_LEN = 0x3a;
const TAG8_LEN = 0x42;
const TAG9_LEN = 0x4a;
const TAG1_VARINT = 0x08;
const TAG2_VARINT = 0x10;
const TAG3_VARINT = 0x18;
const TAG1_FIXED32 = 0x0d;
const TAG1_FIXED64 = 0x09;
const TAG2_FIXED64 = 0x11;

const UINT64_MAX = 0xffff_ffff_ffff_ffffn;

// The byte lengths of every length-delimited value (sub-messages, map entries, strings) and the
// number of entries of every map, in the order both passes visit them: the first pass records
// them, the second reads them back. Kept between calls so that encoding allocates nothing but
// the result.
let sizes = new Int32Array(1024);
let recorded = 0;
let read = 0;
// The keys and values of the maps, and the bytes `toBinary` gives for `http2` and
// `resource_ref`, in the same order; emptied after each call so that they do not outlive it.
const texts: string[] = [];
let textsRecorded = 0;
let textsRead = 0;
const blobs: Uint8Array[] = [];
const EMPTY = new Uint8Array(0);
let blobsRecorded = 0;
let blobsRead = 0;

/** Thrown by the first pass at a value it leaves to `toBinary`. */
const UNEXPECTED = new Error("value left to toBinary");
/** Thrown by the second pass at a short string that is not ASCII after all. */
const NOT_ASCII = new Error("short string not ASCII");

// Whether the first pass measures every string in UTF-8 (after a NOT_ASCII) or takes a short
// one's length in UTF-16 code units for its length in bytes, true of ASCII and so of nearly
// all the text of an Update (label keys and values, DNS names).
let exact = false;

function encode(update: Update, offset: number): Buffer {
  // Anything but a plain Update (a foreign message) gets toBinary's own error.
  if (update.$typeName !== UpdateSchema.typeName) return fallback(update, offset);
  try {
    return encodeOnce(update, offset);
  } catch (err) {
    if (err !== NOT_ASCII) throw err;
    exact = true;
    try {
      return encodeOnce(update, offset);
    } finally {
      exact = false;
    }
  }
}

function encodeOnce(update: Update, offset: number): Buffer {
  recorded = 0;
  textsRecorded = 0;
  blobsRecorded = 0;
  let size: number;
  try {
    size = updateSize(update);
  } catch (err) {
    // toBinary either encodes the value the fast path did not expect or throws its own error.
    if (err === UNEXPECTED) return fallback(update, offset);
    throw err;
  }
  const buf = Buffer.allocUnsafe(offset + size) as RawBuffer;
  read = 0;
  textsRead = 0;
  blobsRead = 0;
  const end = writeUpdate(buf, offset, update);
  if (textsRecorded > 0) texts.fill("", 0, textsRecorded);
  if (blobsRecorded > 0) blobs.fill(EMPTY, 0, blobsRecorded);
  // Both passes walk the same message, so this holds unless the message changed in between.
  if (end !== buf.length || read !== recorded) {
    throw new Error("Update changed while it was encoded");
  }
  writePrefix(buf, offset, size);
  return buf;
}

function fallback(update: Update, offset: number): Buffer {
  const bytes = toBinary(UpdateSchema, update);
  const buf = Buffer.allocUnsafe(offset + bytes.length);
  writePrefix(buf, offset, bytes.length);
  buf.set(bytes, offset);
  return buf;
}

/** A frame's prefix, when room was left for one: uncompressed, then the message length. */
function writePrefix(buf: Buffer, offset: number, size: number): void {
  if (offset !== FRAME_PREFIX) return;
  buf[0] = 0;
  buf.writeUInt32BE(size, 1);
}

/**
 * Node's direct string coders (on every Buffer since early Node, though undocumented): they skip
 * `write`'s argument parsing, which costs as much as copying a short string.
 */
type RawBuffer = Buffer & {
  latin1Write(text: string, offset: number, length: number): number;
  utf8Write(text: string, offset: number, length: number): number;
};

// ---- First pass: sizes. Each function returns the bytes its value takes on the wire, tag
// included; a nested value records its length in a slot taken before its children's slots.

function slot(): number {
  if (recorded === sizes.length) grow();
  return recorded++;
}

function grow(): void {
  const grown = new Int32Array(sizes.length * 2);
  grown.set(sizes);
  sizes = grown;
}

/** A field of one-byte tag whose value of `length` bytes was measured into `at`. */
function delimited(at: number, length: number): number {
  sizes[at] = length;
  return 1 + varintSize(length) + length;
}

function varintSize(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  if (value < 0x10000000) return 4;
  return 5;
}

/** A uint32 field of one-byte tag; anything but an integer in range goes to `toBinary`. */
function uint32Size(value: number): number {
  if (value >>> 0 !== value) throw UNEXPECTED;
  return 1 + varintSize(value);
}

// Up to this length, a string is copied by a loop that also checks it is ASCII; a longer one is
// measured with `Buffer.byteLength` and written by Node, which costs a call into C++ each.
const SHORT = 24;

/** A string field of one-byte tag (written even when empty: callers check for ""). */
function stringSize(text: string): number {
  if (typeof text !== "string") throw UNEXPECTED;
  const n = text.length;
  const length = n <= SHORT && !exact ? n : Buffer.byteLength(text);
  if (recorded === sizes.length) grow();
  sizes[recorded++] = length;
  return length < 0x80 ? length + 2 : 1 + varintSize(length) + length;
}

function updateSize(update: Update): number {
  let size = 0;
  const u = update.update;
  switch (u.case) {
    case "add":
      size = delimited(slot(), weightedAddrSetSize(u.value));
      break;
    case "remove":
      size = delimited(slot(), addrSetSize(u.value));
      break;
    case "noEndpoints": {
      const at = slot();
      size = delimited(at, (u.value.exists !== false ? 2 : 0) + unknownSize(u.value.$unknown));
      break;
    }
  }
  return size + unknownSize(update.$unknown);
}

function weightedAddrSetSize(set: WeightedAddrSet): number {
  let size = 0;
  const addrs = set.addrs;
  for (let i = 0; i < addrs.length; i++) {
    size += delimited(slot(), weightedAddrSize(addrs[i] as WeightedAddr));
  }
  return size + stringMapSize(set.metricLabels) + unknownSize(set.$unknown);
}

function addrSetSize(set: AddrSet): number {
  let size = 0;
  const addrs = set.addrs;
  for (let i = 0; i < addrs.length; i++) {
    size += delimited(slot(), tcpAddressSize(addrs[i] as TcpAddress));
  }
  return size + unknownSize(set.$unknown);
}

function weightedAddrSize(wa: WeightedAddr): number {
  let size = 0;
  if (wa.addr !== undefined) size += delimited(slot(), tcpAddressSize(wa.addr));
  if (wa.weight !== 0) size += uint32Size(wa.weight);
  size += stringMapSize(wa.metricLabels);
  if (wa.tlsIdentity !== undefined) size += delimited(slot(), tlsIdentitySize(wa.tlsIdentity));
  if (wa.protocolHint !== undefined) size += delimited(slot(), protocolHintSize(wa.protocolHint));
  if (wa.authorityOverride !== undefined) {
    const at = slot();
    const value = wa.authorityOverride.authorityOverride;
    const body =
      (value !== "" ? stringSize(value) : 0) + unknownSize(wa.authorityOverride.$unknown);
    size += delimited(at, body);
  }
  if (wa.http2 !== undefined) size += blobSize(http2Bytes(wa.http2));
  if (wa.resourceRef !== undefined) size += blobSize(toBinary(MetadataSchema, wa.resourceRef));
  return size + unknownSize(wa.$unknown);
}

function blobSize(bytes: Uint8Array): number {
  blobs[blobsRecorded++] = bytes;
  return 1 + varintSize(bytes.length) + bytes.length;
}

function tcpAddressSize(addr: TcpAddress): number {
  let size = 0;
  if (addr.ip !== undefined) size += delimited(slot(), ipAddressSize(addr.ip));
  if (addr.port !== 0) size += uint32Size(addr.port);
  return size + unknownSize(addr.$unknown);
}

function ipAddressSize(ip: IPAddress): number {
  let size = 0;
  const v = ip.ip;
  if (v.case === "ipv4") {
    if (v.value >>> 0 !== v.value) throw UNEXPECTED;
    size = 5;
  } else if (v.case === "ipv6") {
    const at = slot();
    const { first, last } = v.value;
    let body = unknownSize(v.value.$unknown);
    if (first !== 0n) body += fixed64Size(first);
    if (last !== 0n) body += fixed64Size(last);
    size = delimited(at, body);
  }
  return size + unknownSize(ip.$unknown);
}

/** A fixed64 field of one-byte tag; anything but a bigint in range goes to `toBinary`. */
function fixed64Size(value: bigint): number {
  if (typeof value !== "bigint" || value < 0n || value > UINT64_MAX) throw UNEXPECTED;
  return 9;
}

function tlsIdentitySize(id: TlsIdentity): number {
  let size = 0;
  const s = id.strategy;
  if (s.case === "dnsLikeIdentity") {
    size = delimited(slot(), dnsLikeIdentitySize(s.value));
  } else if (s.case === "uriLikeIdentity") {
    const at = slot();
    const uri = s.value.uri;
    size = delimited(at, (uri !== "" ? stringSize(uri) : 0) + unknownSize(s.value.$unknown));
  }
  if (id.serverName !== undefined) size += delimited(slot(), dnsLikeIdentitySize(id.serverName));
  return size + unknownSize(id.$unknown);
}

function dnsLikeIdentitySize(id: TlsIdentity_DnsLikeIdentity): number {
  return (id.name !== "" ? stringSize(id.name) : 0) + unknownSize(id.$unknown);
}

function protocolHintSize(hint: ProtocolHint): number {
  let size = 0;
  const p = hint.protocol;
  if (p.case === "h2") size += delimited(slot(), unknownSize(p.value.$unknown));
  const opaqueTransport = hint.opaqueTransport;
  if (opaqueTransport !== undefined) {
    const at = slot();
    const port = opaqueTransport.inboundPort;
    size += delimited(
      at,
      (port !== 0 ? uint32Size(port) : 0) + unknownSize(opaqueTransport.$unknown),
    );
  }
  if (p.case === "opaque") size += delimited(slot(), unknownSize(p.value.$unknown));
  return size + unknownSize(hint.$unknown);
}

/**
 * `map<string, string>`: one entry per own key, key and value always written. Records the
 * number of entries and every key and value, so that the second pass needs neither
 * `Object.keys` nor a lookup per key again.
 */
function stringMapSize(map: { [key: string]: string }): number {
  const keys = Object.keys(map);
  const count = keys.length;
  if (recorded === sizes.length) grow();
  sizes[recorded++] = count;
  let size = 0;
  for (let i = 0; i < count; i++) {
    const key = keys[i] as string;
    const value = map[key] as string;
    const at = slot();
    const entry = stringSize(key) + stringSize(value);
    sizes[at] = entry;
    size += entry < 0x80 ? entry + 2 : 1 + varintSize(entry) + entry;
    texts[textsRecorded++] = key;
    texts[textsRecorded++] = value;
  }
  return size;
}

// Callers read `$unknown` themselves: read here, from every message type, it would be slow.
function unknownSize(unknown: UnknownField[] | undefined): number {
  if (unknown === undefined) return 0;
  let size = 0;
  for (let i = 0; i < unknown.length; i++) {
    const { no, wireType, data } = unknown[i] as UnknownField;
    size += varintSize(((no << 3) | wireType) >>> 0) + data.length;
  }
  return size;
}

// ---- Second pass: bytes. Each function writes at `pos` and returns the position after, taking
// the lengths the first pass recorded in the same order.

function writeVarint(buf: Buffer, pos: number, value: number): number {
  while (value > 0x7f) {
    buf[pos++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  buf[pos++] = value;
  return pos;
}

/** Writes the tag and the recorded length of a length-delimited value. */
function writeHead(buf: Buffer, pos: number, tag: number): number {
  buf[pos++] = tag;
  const length = sizes[read++] as number;
  if (length < 0x80) {
    buf[pos++] = length;
    return pos;
  }
  return writeVarint(buf, pos, length);
}

function writeString(buf: RawBuffer, pos: number, tag: number, text: string): number {
  const length = sizes[read++] as number;
  buf[pos++] = tag;
  if (length < 0x80) buf[pos++] = length;
  else pos = writeVarint(buf, pos, length);
  const n = text.length;
  if (length !== n) return pos + buf.utf8Write(text, pos, length);
  // A long string's length was measured in bytes: as many as code units, so all ASCII.
  if (n > SHORT) return pos + buf.latin1Write(text, pos, n);
  for (let i = 0; i < n; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) throw NOT_ASCII;
    buf[pos++] = code;
  }
  return pos;
}

function writeUpdate(buf: RawBuffer, pos: number, update: Update): number {
  const u = update.update;
  switch (u.case) {
    case "add":
      pos = writeWeightedAddrSet(buf, writeHead(buf, pos, TAG1_LEN), u.value);
      break;
    case "remove":
      pos = writeAddrSet(buf, writeHead(buf, pos, TAG2_LEN), u.value);
      break;
    case "noEndpoints":
      pos = writeHead(buf, pos, TAG3_LEN);
      if (u.value.exists !== false) {
        buf[pos++] = TAG1_VARINT;
        buf[pos++] = u.value.exists ? 1 : 0;
      }
      pos = writeUnknown(buf, pos, u.value.$unknown);
      break;
  }
  return writeUnknown(buf, pos, update.$unknown);
}

function writeWeightedAddrSet(buf: RawBuffer, pos: number, set: WeightedAddrSet): number {
  const addrs = set.addrs;
  for (let i = 0; i < addrs.length; i++) {
    pos = writeWeightedAddr(buf, writeHead(buf, pos, TAG1_LEN), addrs[i] as WeightedAddr);
  }
  pos = writeStringMap(buf, pos, TAG2_LEN);
  return writeUnknown(buf, pos, set.$unknown);
}

function writeAddrSet(buf: RawBuffer, pos: number, set: AddrSet): number {
  const addrs = set.addrs;
  for (let i = 0; i < addrs.length; i++) {
    pos = writeTcpAddress(buf, writeHead(buf, pos, TAG1_LEN), addrs[i] as TcpAddress);
  }
  return writeUnknown(buf, pos, set.$unknown);
}

function writeWeightedAddr(buf: RawBuffer, pos: number, wa: WeightedAddr): number {
  if (wa.addr !== undefined) pos = writeTcpAddress(buf, writeHead(buf, pos, TAG1_LEN), wa.addr);
  if (wa.weight !== 0) {
    buf[pos++] = TAG3_VARINT;
    pos = writeVarint(buf, pos, wa.weight);
  }
  pos = writeStringMap(buf, pos, TAG4_LEN);
  if (wa.tlsIdentity !== undefined) {
    pos = writeTlsIdentity(buf, writeHead(buf, pos, TAG5_LEN), wa.tlsIdentity);
  }
  if (wa.protocolHint !== undefined) {
    pos = writeProtocolHint(buf, writeHead(buf, pos, TAG6_LEN), wa.protocolHint);
  }
  if (wa.authorityOverride !== undefined) {
    pos = writeHead(buf, pos, TAG7_LEN);
    const value = wa.authorityOverride.authorityOverride;
    if (value !== "") pos = writeString(buf, pos, TAG1_LEN, value);
    pos = writeUnknown(buf, pos, wa.authorityOverride.$unknown);
  }
  if (wa.http2 !== undefined) pos = writeBlob(buf, pos, TAG8_LEN);
  if (wa.resourceRef !== undefined) pos = writeBlob(buf, pos, TAG9_LEN);
  return writeUnknown(buf, pos, wa.$unknown);
}

function writeBlob(buf: RawBuffer, pos: number, tag: number): number {
  const bytes = blobs[blobsRead++] as Uint8Array;
  buf[pos++] = tag;
  pos = writeVarint(buf, pos, bytes.length);
  buf.set(bytes, pos);
  return pos + bytes.length;
}

function writeTcpAddress(buf: RawBuffer, pos: number, addr: TcpAddress): number {
  if (addr.ip !== undefined) pos = writeIpAddress(buf, writeHead(buf, pos, TAG1_LEN), addr.ip);
  if (addr.port !== 0) {
    buf[pos++] = TAG2_VARINT;
    pos = writeVarint(buf, pos, addr.port);
  }
  return writeUnknown(buf, pos, addr.$unknown);
}

function writeIpAddress(buf: RawBuffer, pos: number, ip: IPAddress): number {
  const v = ip.ip;
  if (v.case === "ipv4") {
    const value = v.value;
    buf[pos++] = TAG1_FIXED32;
    buf[pos++] = value & 0xff;
    buf[pos++] = (value >>> 8) & 0xff;
    buf[pos++] = (value >>> 16) & 0xff;
    buf[pos++] = value >>> 24;
  } else if (v.case === "ipv6") {
    pos = writeHead(buf, pos, TAG2_LEN);
    const { first, last } = v.value;
    if (first !== 0n) {
      buf[pos++] = TAG1_FIXED64;
      pos = buf.writeBigUInt64LE(first, pos);
    }
    if (last !== 0n) {
      buf[pos++] = TAG2_FIXED64;
      pos = buf.writeBigUInt64LE(last, pos);
    }
    pos = writeUnknown(buf, pos, v.value.$unknown);
  }
  return writeUnknown(buf, pos, ip.$unknown);
}

function writeTlsIdentity(buf: RawBuffer, pos: number, id: TlsIdentity): number {
  const s = id.strategy;
  if (s.case === "dnsLikeIdentity") {
    pos = writeDnsLikeIdentity(buf, writeHead(buf, pos, TAG1_LEN), s.value);
  } else if (s.case === "uriLikeIdentity") {
    pos = writeHead(buf, pos, TAG3_LEN);
    if (s.value.uri !== "") pos = writeString(buf, pos, TAG1_LEN, s.value.uri);
    pos = writeUnknown(buf, pos, s.value.$unknown);
  }
  if (id.serverName !== undefined) {
    pos = writeDnsLikeIdentity(buf, writeHead(buf, pos, TAG4_LEN), id.serverName);
  }
  return writeUnknown(buf, pos, id.$unknown);
}

function writeDnsLikeIdentity(
  buf: RawBuffer,
  pos: number,
  id: TlsIdentity_DnsLikeIdentity,
): number {
  if (id.name !== "") pos = writeString(buf, pos, TAG1_LEN, id.name);
  return writeUnknown(buf, pos, id.$unknown);
}

function writeProtocolHint(buf: RawBuffer, pos: number, hint: ProtocolHint): number {
  const p = hint.protocol;
  if (p.case === "h2") pos = writeUnknown(buf, writeHead(buf, pos, TAG1_LEN), p.value.$unknown);
  const opaqueTransport = hint.opaqueTransport;
  if (opaqueTransport !== undefined) {
    pos = writeHead(buf, pos, TAG2_LEN);
    const port = opaqueTransport.inboundPort;
    if (port !== 0) {
      buf[pos++] = TAG1_VARINT;
      pos = writeVarint(buf, pos, port);
    }
    pos = writeUnknown(buf, pos, opaqueTransport.$unknown);
  }
  if (p.case === "opaque") pos = writeUnknown(buf, writeHead(buf, pos, TAG3_LEN), p.value.$unknown);
  return writeUnknown(buf, pos, hint.$unknown);
}

function writeStringMap(buf: RawBuffer, pos: number, tag: number): number {
  const count = sizes[read++] as number;
  for (let i = 0; i < count; i++) {
    pos = writeHead(buf, pos, tag);
    pos = writeString(buf, pos, TAG1_LEN, texts[textsRead++] as string);
    pos = writeString(buf, pos, TAG2_LEN, texts[textsRead++] as string);
  }
  return pos;
}

function writeUnknown(buf: RawBuffer, pos: number, unknown: UnknownField[] | undefined): number {
  if (unknown === undefined) return pos;
  for (let i = 0; i < unknown.length; i++) {
    const { no, wireType, data } = unknown[i] as UnknownField;
    pos = writeVarint(buf, pos, ((no << 3) | wireType) >>> 0);
    buf.set(data, pos);
    pos += data.length;
  }
  return pos;
}

// ---- Shared sub-messages.

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
