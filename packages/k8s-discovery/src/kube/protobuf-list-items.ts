import { isFieldSet } from "@bufbuild/protobuf";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import type { PartialObjectMetadata } from "@destination/core";
import {
  EncodedListSchema,
  ListMetaSchema,
  PartialObjectMetadataSchema,
} from "../gen/k8s/meta/v1/meta_pb.js";
import { UnknownSchema } from "../gen/k8s/runtime/runtime_pb.js";
import { apiVersionOf, type ResourceKindInfo } from "../resource-kind.js";
import { PROTOBUF_MAGIC } from "./api-resource.js";
import { decodeMessage, ProtobufError } from "./protobuf-decode.js";
import { readEndpointSlice } from "./protobuf-endpoint-slice.js";
import { emptyObjectMeta, projectObjectMeta } from "./protobuf-object-meta.js";
import { readPod } from "./protobuf-pod.js";
import { readService } from "./protobuf-service.js";

/** What a list response says besides its items. */
export interface ListEnvelope {
  metadata: { resourceVersion?: string; continue?: string };
  items: [];
}

/** Decodes one item of a list from its encoded message. */
export type ItemReader = (bytes: Uint8Array) => unknown;

// Field numbers from the schemas (proto/k8s): the envelope's `raw`, and the list's.
const RAW = UnknownSchema.field.raw.number;
const LIST_METADATA = EncodedListSchema.field.metadata.number;
const LIST_ITEMS = EncodedListSchema.field.items.number;

/**
 * Reads a protobuf list response (`application/vnd.kubernetes.protobuf`) as it arrives and hands
 * out its items one by one, the protobuf counterpart of `ListItems`. The body is the magic
 * `k8s\0`, then a `runtime.Unknown` whose `raw` holds the list: `metadata` (a ListMeta) and
 * `items`, repeated (the `EncodedList` of proto/k8s/meta/v1). The list is not decoded whole:
 * each of its fields is taken as soon as its last byte arrives and decoded with its generated
 * schema, so that only the bytes of the field being read are held, never the body.
 */
export class ProtobufListItems {
  readonly #readItem: ItemReader;
  /**
   * The bytes received and not consumed yet, `#pending[#start..#end]`. Chunks are copied in
   * rather than kept: the API server sends a list in HTTP chunks of at most 2 KB, so nearly
   * every pod spanned two of them, and joining the pieces of each one, plus a view per chunk,
   * cost more than copying every byte once. Made in JavaScript, so the item readers only ever
   * meet one kind of Buffer (node makes socket Buffers in C++, with a hidden class of their
   * own, and decoders that met both were optimized, thrown away and optimized again).
   */
  #pending = Buffer.allocUnsafeSlow(INITIAL_PENDING_BYTES);
  #start = 0;
  #end = 0;
  /** Bytes consumed since the start of the body. */
  #consumed = 0;
  #stage: "magic" | "envelope" | "list" = "magic";
  /** Where the list (the envelope's `raw`) ends, counted from the start of the body. */
  #listEnd = 0;
  #sawList = false;
  readonly #envelope: ListEnvelope = { metadata: {}, items: [] };

  constructor(readItem: ItemReader) {
    this.#readItem = readItem;
  }

  /** The items completed by this chunk, decoded. */
  push(chunk: Uint8Array): unknown[] {
    this.#append(chunk);
    const out: unknown[] = [];
    for (;;) {
      if (this.#stage === "magic") {
        const magic = this.#take(PROTOBUF_MAGIC.length);
        if (magic === undefined) break;
        if (Buffer.compare(magic, PROTOBUF_MAGIC) !== 0) {
          throw new ProtobufError("the body does not start with the protobuf magic k8s\\0");
        }
        this.#stage = "envelope";
        continue;
      }
      if (this.#stage === "list" && this.#consumed === this.#listEnd) {
        this.#stage = "envelope";
        continue;
      }
      const header = this.#peekHeader();
      if (header === undefined) break;
      const { fieldNo, headerLength, length } = header;
      if (this.#stage === "envelope" && fieldNo === RAW) {
        // The list itself: read field by field rather than held whole.
        this.#start += headerLength;
        this.#consumed += headerLength;
        this.#stage = "list";
        this.#sawList = true;
        this.#listEnd = this.#consumed + length;
        continue;
      }
      if (this.#stage === "list" && this.#consumed + headerLength + length > this.#listEnd) {
        throw new ProtobufError("a list field runs past the list");
      }
      const field = this.#take(headerLength + length);
      if (field === undefined) break;
      // The envelope's other fields (typeMeta, content type and encoding) are not needed.
      if (this.#stage !== "list") continue;
      const value = field.subarray(headerLength);
      if (fieldNo === LIST_ITEMS) out.push(this.#readItem(value));
      else if (fieldNo === LIST_METADATA) this.#readListMeta(value);
    }
    return out;
  }

  /** The list's metadata, with `items` empty; throws when the body ended early. */
  end(): ListEnvelope {
    if (!this.#sawList || this.#stage === "list" || this.#end > this.#start) {
      throw new ProtobufError("the protobuf list response ended early");
    }
    return this.#envelope;
  }

  #readListMeta(bytes: Uint8Array): void {
    const m = decodeMessage(ListMetaSchema, bytes);
    const { metadata } = this.#envelope;
    if (isFieldSet(m, ListMetaSchema.field.resourceVersion)) {
      metadata.resourceVersion = m.resourceVersion;
    }
    if (m.continue !== "") metadata.continue = m.continue;
  }

  /**
   * The field number and length of the length-delimited field that comes next, when its header
   * has arrived; other wire types (none in these messages) are refused.
   */
  #peekHeader(): { fieldNo: number; headerLength: number; length: number } | undefined {
    const { buffer, byteOffset } = this.#pending;
    const r = new BinaryReader(
      new Uint8Array(buffer, byteOffset + this.#start, this.#end - this.#start),
    );
    let fieldNo: number;
    let wireType: WireType;
    let length: number;
    try {
      [fieldNo, wireType] = r.tag();
      length = r.uint32();
    } catch (err) {
      // A header cut short by the end of what has arrived is waited for.
      if (r.pos > r.len) return undefined;
      throw new ProtobufError(`a list field does not decode: ${(err as Error).message}`);
    }
    if (wireType !== WireType.LengthDelimited) {
      throw new ProtobufError(`unexpected wire type ${wireType} in a list`);
    }
    return { fieldNo, headerLength: r.pos, length };
  }

  /**
   * The next `n` bytes, consumed, or undefined until they have all arrived. A plain Uint8Array
   * view, not a Buffer: the decoder takes a view of every field it reads or skips, and
   * Buffer's `subarray` costs several times a Uint8Array's (a fifth of decoding a pod list).
   */
  #take(n: number): Uint8Array | undefined {
    if (this.#end - this.#start < n) return undefined;
    const { buffer, byteOffset } = this.#pending;
    const bytes = new Uint8Array(buffer, byteOffset + this.#start, n);
    this.#start += n;
    this.#consumed += n;
    return bytes;
  }

  /** Copies `chunk` after the pending bytes, moving them to the front or growing as needed. */
  #append(chunk: Uint8Array): void {
    const live = this.#end - this.#start;
    if (this.#end + chunk.length > this.#pending.length) {
      if (live + chunk.length <= this.#pending.length) {
        this.#pending.copyWithin(0, this.#start, this.#end);
      } else {
        const grown = Buffer.allocUnsafeSlow(
          Math.max(this.#pending.length * 2, live + chunk.length),
        );
        grown.set(this.#pending.subarray(this.#start, this.#end));
        this.#pending = grown;
      }
      this.#start = 0;
      this.#end = live;
    }
    this.#pending.set(chunk, this.#end);
    this.#end += chunk.length;
  }
}

/** Room for a few dozen pods before the pending bytes are first moved to the front. */
const INITIAL_PENDING_BYTES = 64 * 1024;

/**
 * The kinds whose lists are asked for in protobuf, and how their items are read: the built-in
 * kinds every start lists. The API server encodes them faster in protobuf than in JSON, and
 * their schemas (proto/) declare only what some watcher reads, so the rest (most of a pod's
 * bytes; a Service's status and settings) is skipped by length. Custom resources have no
 * protobuf form: they stay JSON.
 */
export const PROTOBUF_ITEM_READERS: Readonly<Partial<Record<string, ItemReader>>> = {
  Pod: readPod,
  EndpointSlice: readEndpointSlice,
  Service: readService,
};

/**
 * The item reader of a metadata-only list (`PartialObjectMetadataList`): each item's metadata,
 * without `managedFields`, typed as the resource it describes, as `toObjectMetadata` keeps it.
 */
export function metadataItemReader(
  info: Pick<ResourceKindInfo, "kind" | "group" | "version">,
): ItemReader {
  const apiVersion = apiVersionOf(info);
  return (bytes: Uint8Array): PartialObjectMetadata => {
    const m = decodeMessage(PartialObjectMetadataSchema, bytes);
    const item = {} as PartialObjectMetadata;
    item.apiVersion = apiVersion;
    item.kind = info.kind;
    item.metadata =
      m.metadata === undefined ? emptyObjectMeta() : projectObjectMeta(m.metadata, false);
    return item;
  };
}
