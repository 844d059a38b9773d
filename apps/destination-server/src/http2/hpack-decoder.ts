import { HeaderListTooLargeError, HpackError } from "./hpack-error.js";
import { decodeHuffman } from "./hpack-huffman.js";
import { STATIC_TABLE, STATIC_TABLE_LENGTH } from "./hpack-static-table.js";

/** The SETTINGS_HEADER_TABLE_SIZE default, and what we advertise unless told otherwise. */
export const DEFAULT_HEADER_TABLE_SIZE = 4096;

type Entry = readonly [name: string, value: string];

/** RFC 7541 section 4.1: an entry costs its name and value octets plus this much overhead. */
const ENTRY_OVERHEAD = 32;

/**
 * Integers beyond this are rejected rather than computed: no index, string length or table size
 * can be that large, and stopping here keeps the arithmetic exact and the loop short.
 */
const MAX_INTEGER = 0x7fffffff;

export interface HpackDecoderOptions {
  /**
   * The SETTINGS_HEADER_TABLE_SIZE we advertise: the dynamic table starts at this size and the
   * peer may shrink it, or grow it back, but never beyond (RFC 7541 section 4.2). Default 4096.
   */
  readonly maxTableSize?: number;
}

/**
 * The receiving side of one connection's HPACK context (RFC 7541): decodes header blocks in the
 * order they arrive, keeping the dynamic table in step with the peer's encoder.
 */
export class HpackDecoder {
  /** The most the peer may set the table size to: what we advertised. */
  readonly #maxTableSizeLimit: number;
  /** The table size the peer last chose with a dynamic table size update. */
  #maxTableSize: number;
  /** Octets the entries take, as RFC 7541 section 4.1 counts them. */
  #tableSize = 0;
  /*
   * A ring of the dynamic entries: `#first` is the slot of the newest (index 62), older ones
   * follow. Every entry costs at least 32 octets, which bounds how many can ever be held.
   */
  readonly #entries: (Entry | undefined)[];
  #first = 0;
  #count = 0;

  constructor(options: HpackDecoderOptions = {}) {
    const maxTableSize = options.maxTableSize ?? DEFAULT_HEADER_TABLE_SIZE;
    if (!Number.isInteger(maxTableSize) || maxTableSize < 0 || maxTableSize > MAX_INTEGER) {
      throw new RangeError(`invalid HPACK table size ${maxTableSize}`);
    }
    this.#maxTableSizeLimit = maxTableSize;
    this.#maxTableSize = maxTableSize;
    const capacity = Math.max(1, Math.floor(maxTableSize / ENTRY_OVERHEAD));
    this.#entries = new Array<Entry | undefined>(capacity).fill(undefined);
  }

  /** Octets the dynamic table holds now (RFC 7541 section 4.1). */
  get dynamicTableSize(): number {
    return this.#tableSize;
  }

  /** The dynamic table's current maximum size, as the peer last set it. */
  get maxDynamicTableSize(): number {
    return this.#maxTableSize;
  }

  /** The dynamic entries, newest (index 62) first; a copy, for diagnostics and tests. */
  dynamicTableEntries(): [name: string, value: string][] {
    const entries: [string, string][] = [];
    for (let index = STATIC_TABLE_LENGTH + 1; index <= STATIC_TABLE_LENGTH + this.#count; index++) {
      const [name, value] = this.#entry(index);
      entries.push([name, value]);
    }
    return entries;
  }

  /**
   * Decodes one complete header block (RFC 7541 section 6) into `[name0, value0, name1, value1, ...]`,
   * latin1 strings in block order. Throws `HpackError` if the block is malformed; the dynamic
   * table is then out of step and the connection must end. If the header list is larger than
   * `maxHeaderListSize` the whole block is still decoded, so that the table stays in step, and
   * then `HeaderListTooLargeError` is thrown.
   */
  decode(block: Uint8Array, maxHeaderListSize: number): string[] {
    const reader = new BlockReader(block);
    const fields: string[] = [];
    let listSize = 0;
    let fieldSeen = false;
    while (reader.pos < block.length) {
      const octet = block[reader.pos] as number;
      let name: string;
      let value: string;
      if (octet >= 0x80) {
        // section 6.1 indexed header field: 1xxxxxxx.
        [name, value] = this.#entry(reader.integer(7));
      } else if (octet >= 0x40) {
        // section 6.2.1 literal with incremental indexing: 01xxxxxx.
        name = this.#literalName(reader, 6);
        value = reader.string();
        this.#insert(name, value);
      } else if (octet >= 0x20) {
        // section 6.3 dynamic table size update: 001xxxxx, only before the first field (section 4.2).
        if (fieldSeen) throw new HpackError("dynamic table size update after a header field");
        const size = reader.integer(5);
        if (size > this.#maxTableSizeLimit) {
          throw new HpackError(
            `dynamic table size update to ${size} exceeds the advertised ` +
              `${this.#maxTableSizeLimit}`,
          );
        }
        this.#maxTableSize = size;
        this.#evictTo(size);
        continue;
      } else {
        // section 6.2.2 without indexing (0000xxxx), section 6.2.3 never indexed (0001xxxx): not stored.
        // Never-indexed is a promise about re-encoding, and this server never forwards headers.
        name = this.#literalName(reader, 4);
        value = reader.string();
      }
      fieldSeen = true;
      listSize += name.length + value.length + ENTRY_OVERHEAD;
      // Past the limit the fields are dropped, not kept: the caller only needs the error.
      if (listSize <= maxHeaderListSize) fields.push(name, value);
    }
    if (listSize > maxHeaderListSize) {
      throw new HeaderListTooLargeError(listSize, maxHeaderListSize);
    }
    return fields;
  }

  #literalName(reader: BlockReader, prefixBits: number): string {
    const index = reader.integer(prefixBits);
    return index === 0 ? reader.string() : this.#entry(index)[0];
  }

  /** The entry at `index` of the static and dynamic tables together (RFC 7541 section 2.3.3). */
  #entry(index: number): Entry {
    let entry: Entry | undefined;
    if (index <= STATIC_TABLE_LENGTH) {
      entry = STATIC_TABLE[index - 1];
    } else if (index <= STATIC_TABLE_LENGTH + this.#count) {
      entry = this.#entries[(this.#first + index - STATIC_TABLE_LENGTH - 1) % this.#entries.length];
    }
    if (entry === undefined) {
      throw new HpackError(
        `index ${index} is not in the tables (1 to ${STATIC_TABLE_LENGTH + this.#count})`,
      );
    }
    return entry;
  }

  /** RFC 7541 section 4.4: evict until the entry fits; an entry larger than the table empties it. */
  #insert(name: string, value: string): void {
    const size = name.length + value.length + ENTRY_OVERHEAD;
    if (size > this.#maxTableSize) {
      this.#evictTo(0);
      return;
    }
    this.#evictTo(this.#maxTableSize - size);
    const capacity = this.#entries.length;
    this.#first = (this.#first + capacity - 1) % capacity;
    this.#entries[this.#first] = [name, value];
    this.#count++;
    this.#tableSize += size;
  }

  /** Drops the oldest entries until the table takes at most `size` octets. */
  #evictTo(size: number): void {
    const capacity = this.#entries.length;
    while (this.#tableSize > size) {
      const oldest = (this.#first + this.#count - 1) % capacity;
      const entry = this.#entries[oldest];
      if (entry === undefined) break; // Unreachable: the size counts only entries present.
      this.#tableSize -= entry[0].length + entry[1].length + ENTRY_OVERHEAD;
      // Let the strings go: a long value should not outlive its entry.
      this.#entries[oldest] = undefined;
      this.#count--;
    }
  }
}

/** A cursor over one header block that reads HPACK's primitive types (RFC 7541 section 5). */
class BlockReader {
  readonly #block: Uint8Array;
  readonly #buffer: Buffer;
  pos = 0;

  constructor(block: Uint8Array) {
    this.#block = block;
    this.#buffer = Buffer.isBuffer(block)
      ? block
      : Buffer.from(block.buffer, block.byteOffset, block.byteLength);
  }

  /** section 5.1: an integer whose first `prefixBits` bits are the low bits of the current octet. */
  integer(prefixBits: number): number {
    const block = this.#block;
    if (this.pos >= block.length) throw new HpackError("header block truncated before an integer");
    const mask = (1 << prefixBits) - 1;
    let value = (block[this.pos++] as number) & mask;
    if (value < mask) return value;
    for (let shift = 0; ; shift += 7) {
      if (this.pos >= block.length) throw new HpackError("header block truncated in an integer");
      const octet = block[this.pos++] as number;
      value += (octet & 0x7f) * 2 ** shift;
      // RFC 7541 section 5.1 lets a decoder limit both value and octet count; the octet bound also
      // stops an endless run of zero-valued continuation octets.
      if (value > MAX_INTEGER || shift > 28) {
        throw new HpackError("integer overflow in header block");
      }
      if (octet < 0x80) return value;
    }
  }

  /** section 5.2: a length-prefixed string, Huffman-coded if the length's top bit is set. */
  string(): string {
    const block = this.#block;
    // A missing length octet is for integer() to report.
    const huffman = (block[this.pos] ?? 0) >= 0x80;
    const length = this.integer(7);
    const start = this.pos;
    const end = start + length;
    if (end > block.length) throw new HpackError("header block truncated in a string");
    this.pos = end;
    return huffman ? decodeHuffman(block, start, end) : this.#buffer.toString("latin1", start, end);
  }
}
