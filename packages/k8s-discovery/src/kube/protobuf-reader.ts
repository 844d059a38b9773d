/**
 * A cursor over protobuf wire-format bytes, enough to pick fields out of Kubernetes objects:
 * varints, length-delimited fields and skipping whatever is not read. Every read is checked
 * against the end of the enclosing message, so a truncated or corrupt body throws instead of
 * reading into its neighbour.
 */
export class ProtobufReader {
  // All three set in the constructor: a field declared in the class body starts out undefined,
  // and its first number would change the shape that every reader was compiled for.
  constructor(
    readonly buf: Buffer,
    public pos: number,
    readonly end: number,
  ) {}

  get done(): boolean {
    return this.pos >= this.end;
  }

  /** An unsigned varint up to 2^53; int64 values past 2^63 come back negative. */
  varint(): number {
    const { buf, end } = this;
    let pos = this.pos;
    let byte = 0;
    let result = 0;
    let scale = 1;
    for (let i = 0; ; i++) {
      if (pos >= end || i === 10) throw new ProtobufError("a varint runs past its message");
      byte = buf[pos++] as number;
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) break;
      scale *= 128;
    }
    this.pos = pos;
    return result >= 2 ** 63 ? result - 2 ** 64 : result;
  }

  /** An int32: the low 32 bits of the varint, so negative values (ten bytes) come out right. */
  int32(): number {
    const { buf, end } = this;
    let pos = this.pos;
    let result = 0;
    for (let shift = 0; ; shift += 7) {
      if (pos >= end || shift > 63) throw new ProtobufError("a varint runs past its message");
      const byte = buf[pos++] as number;
      if (shift < 32) result |= (byte & 0x7f) << shift;
      if (byte < 0x80) break;
    }
    this.pos = pos;
    return result | 0;
  }

  bool(): boolean {
    return this.varint() !== 0;
  }

  /** The end offset of the length-delimited field whose length comes next; `pos` is its start. */
  delimited(): number {
    const length = this.varint();
    const end = this.pos + length;
    if (length < 0 || end > this.end) throw new ProtobufError("a field runs past its message");
    return end;
  }

  /**
   * A short ASCII string is looked up in `RECENT_STRINGS` and the copy there is returned when it
   * has the same bytes: most of a pod's strings (label keys and values, namespaces, owners,
   * container and env names, node names) repeat across pods, and one copy of each is what the
   * store then holds. On a 10k-pod list it kept a quarter less heap and read it faster: a hash
   * and a compare in JavaScript cost less than allocating the string and copying it through
   * the young generation.
   */
  string(): string {
    const end = this.delimited();
    const start = this.pos;
    this.pos = end;
    const { buf } = this;
    const length = end - start;
    if (length > MAX_SHARED_LENGTH) return (buf as unknown as Slicing).utf8Slice(start, end);
    let hash = length;
    for (let i = start; i < end; i++) {
      const byte = buf[i] as number;
      if (byte >= 0x80) return (buf as unknown as Slicing).utf8Slice(start, end);
      hash = Math.imul(hash ^ byte, FNV_PRIME);
    }
    const slot = hash >>> (32 - RECENT_STRINGS_BITS);
    const recent = RECENT_STRINGS[slot] as string;
    if (recent.length === length) {
      let i = 0;
      while (i < length && recent.charCodeAt(i) === buf[start + i]) i++;
      if (i === length) return recent;
    }
    // ASCII: latin1 gives the same string without UTF-8 decoding.
    const value = (buf as unknown as Slicing).latin1Slice(start, end);
    RECENT_STRINGS[slot] = value;
    return value;
  }

  /** A reader over the embedded message that comes next; this one moves past it. */
  message(): ProtobufReader {
    const end = this.delimited();
    const inner = new ProtobufReader(this.buf, this.pos, end);
    this.pos = end;
    return inner;
  }

  /** Skips a field of the wire type of `tag`. */
  skip(tag: number): void {
    switch (tag & 7) {
      case 0:
        this.varint();
        return;
      case 1:
        this.#advance(8);
        return;
      case 2:
        this.pos = this.delimited();
        return;
      case 5:
        this.#advance(4);
        return;
      default:
        throw new ProtobufError(`unsupported wire type ${tag & 7}`);
    }
  }

  #advance(n: number): void {
    if (this.pos + n > this.end) throw new ProtobufError("a field runs past its message");
    this.pos += n;
  }
}

/**
 * Node's Buffer methods behind `toString(encoding, start, end)`, called straight: `toString`
 * checks and normalises its arguments first, which was a fifth of reading a pod.
 */
interface Slicing {
  utf8Slice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
}

const MAX_SHARED_LENGTH = 64;
const FNV_PRIME = 0x01000193;
const RECENT_STRINGS_BITS = 12;
/**
 * The last string read per hash slot, shared by every reader: a cache of 4096 short strings
 * (at most ~400 KB), never cleared. Objects of one owner are listed next to each other, so
 * what repeats is usually still there when it comes again.
 */
const RECENT_STRINGS: string[] = new Array<string>(1 << RECENT_STRINGS_BITS).fill("");

export class ProtobufError extends Error {
  override readonly name = "ProtobufError";
}

/** The tag of field `field` with wire type `wireType`, as it appears on the wire (< 2^14 here). */
export const tagOf = (field: number, wireType: number) => (field << 3) | wireType;

/**
 * `list` with `item` added, made when absent: repeated fields arrive one element at a time.
 *
 * What the readers return is kept by the store, and they build it from an empty `{}` assigned
 * field by field, and lists with `Array.of`, never from literals with contents (`{ name: "" }`,
 * `[item]`). V8 gives such a literal an allocation site that counts how many of its objects
 * survive; nearly all of a list's do, and at the first full GC of a start V8 moved those sites
 * to the old generation and threw away every optimized reader allocating from them. A dozen
 * readers were compiled again mid-list: about 5% of a start's CPU.
 */
export function append<T>(list: T[] | null | undefined, item: T): T[] {
  if (!list) return Array.of(item);
  list.push(item);
  return list;
}

/**
 * The string in field 1 of a message that holds one (PodIP, HostIP, ForZone, ForNode), "" when
 * absent: those fields have no omitempty.
 */
export function readFirstString(r: ProtobufReader): string {
  let value = "";
  while (!r.done) {
    const tag = r.varint();
    if (tag === 10) value = r.string();
    else r.skip(tag);
  }
  return value;
}

/**
 * Sets `key` to a string field's value unless it is empty: Go's JSON leaves out an empty string
 * where the field is `omitempty`, and protobuf carries it either way.
 */
export function setNonEmpty<T extends object>(into: T, key: keyof T & string, value: string): void {
  if (value !== "") (into as Record<string, unknown>)[key] = value;
}
