import { PROTOBUF_MAGIC } from "./api-resource.js";
import { ProtobufError, ProtobufReader } from "./protobuf-reader.js";

/** What a list response says besides its items. */
export interface ListEnvelope {
  metadata: { resourceVersion?: string; continue?: string };
  items: [];
}

/** Reads one item of a list from its message. */
export type ItemReader = (r: ProtobufReader) => unknown;

/**
 * Reads a protobuf list response (`application/vnd.kubernetes.protobuf`) as it arrives and hands
 * out its items one by one, the protobuf counterpart of `ListItems`. The body is the magic
 * `k8s\0`, then a `runtime.Unknown` whose `raw` (field 2) holds the list: `metadata` (field 1,
 * a ListMeta) and `items` (field 2, repeated). Only the bytes of the field being read are held;
 * an item is decoded as soon as its last byte arrives.
 */
export class ProtobufListItems {
  readonly #readItem: ItemReader;
  /**
   * The bytes received and not consumed yet, `#pending[#start..#end]`. Chunks are copied in
   * rather than kept: the API server sends a list in HTTP chunks of at most 2 KB, so nearly
   * every pod spanned two of them, and joining the pieces of each one, plus a view per chunk,
   * cost more than copying every byte once. Made in JavaScript, so the item readers only ever
   * meet one kind of Buffer (node makes socket Buffers in C++, with a hidden class of their
   * own, and readers that met both were optimized, thrown away and optimized again).
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
        if (!magic.buf.subarray(magic.pos, magic.end).equals(PROTOBUF_MAGIC)) {
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
      const { tag, headerLength, length } = header;
      if (this.#stage === "envelope" && tag === 18) {
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
      field.pos += headerLength;
      if (this.#stage === "list" && tag === 18) out.push(this.#readItem(field));
      else if (this.#stage === "list" && tag === 10) this.#readListMeta(field);
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

  #readListMeta(r: ProtobufReader): void {
    while (!r.done) {
      const tag = r.varint();
      if (tag === 18) this.#envelope.metadata.resourceVersion = r.string();
      else if (tag === 26) {
        const token = r.string();
        if (token !== "") this.#envelope.metadata.continue = token;
      } else r.skip(tag);
    }
  }

  /**
   * The tag and length of the length-delimited field that comes next, when its header has
   * arrived; other wire types (none in these messages) are refused.
   */
  #peekHeader(): { tag: number; headerLength: number; length: number } | undefined {
    // A header cut short by the end of what has arrived is waited for. Found without reading
    // (and throwing) first: that was most of the times a header was looked for.
    const tagEnd = varintEnd(this.#pending, this.#start, this.#end);
    if (tagEnd === -1) return undefined;
    const headerEnd = varintEnd(this.#pending, tagEnd, this.#end);
    if (headerEnd === -1) return undefined;
    const r = new ProtobufReader(this.#pending, this.#start, headerEnd);
    const tag = r.varint();
    if ((tag & 7) !== 2) throw new ProtobufError(`unexpected wire type ${tag & 7} in a list`);
    const length = r.varint();
    return { tag, headerLength: headerEnd - this.#start, length };
  }

  /** A reader over the next `n` bytes, consumed, or undefined until they have all arrived. */
  #take(n: number): ProtobufReader | undefined {
    if (this.#end - this.#start < n) return undefined;
    const r = new ProtobufReader(this.#pending, this.#start, this.#start + n);
    this.#start += n;
    this.#consumed += n;
    return r;
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

/**
 * Where the varint at `pos` ends, or -1 when its last byte has not arrived before `end`; ten
 * bytes without an end are refused.
 */
function varintEnd(buf: Buffer, pos: number, end: number): number {
  for (let i = pos; i < end; i++) {
    if (i - pos === 10) throw new ProtobufError("a varint runs past its message");
    if ((buf[i] as number) < 0x80) return i + 1;
  }
  return -1;
}

/** Room for a few dozen pods before the pending bytes are first moved to the front. */
const INITIAL_PENDING_BYTES = 64 * 1024;
