import { isAscii } from "node:buffer";

/**
 * Reads a list response (`{"metadata": …, "items": [ … ]}`) as it arrives and hands out its
 * items one by one, each parsed on its own. A list answered from the watch cache comes in one
 * response whatever the page size (30 MB for 10k pods); parsing it whole held the body, its text
 * and every full object at once, and took longer than parsing item by item as chunks come in.
 * The rest of the body (metadata, kind) is parsed at the end with `items` left empty. The
 * `fieldsV1` values of `managedFields` (a third of a pod's JSON) are left out unparsed.
 */
export class ListItems {
  /** Bytes of the body outside the items. */
  readonly #envelope: number[] = [];
  /** The kept pieces of the item being read, from earlier chunks or before a cut. */
  readonly #pieces: Buffer[] = [];
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** The last string closed at depth 1, as bytes: a key when an array follows. */
  #key: number[] = [];
  #keyOpen = false;
  /** Inside the `items` array: 0 outside it, else the depth of its elements. */
  #itemsDepth = 0;
  #inItem = false;
  /** Inside a cut `fieldsV1` value: the depth it opened at, else 0. */
  #cutDepth = 0;
  /** The last string of an item was the key `fieldsV1`, and no other token came since. */
  #cutNext = false;

  /** The items completed by this chunk, parsed. */
  push(chunk: Buffer): unknown[] {
    const out: unknown[] = [];
    const n = chunk.length;
    let depth = this.#depth;
    let inString = this.#inString;
    let escaped = this.#escaped;
    let inItem = this.#inItem;
    let cutDepth = this.#cutDepth;
    let cutNext = this.#cutNext;
    // Where the kept bytes of the item start in this chunk (-1: none kept yet, or cutting).
    let keep = inItem && cutDepth === 0 ? 0 : -1;
    let stringStart = -1;
    // The next backslash at or after i, found once per stretch rather than per string.
    let backslash = -2;
    let i = 0;
    while (i < n) {
      if (inItem) {
        // Inside an item only depth, strings and the fieldsV1 key matter: jump quote to quote.
        if (inString) {
          if (escaped) {
            escaped = false;
            i++;
            continue;
          }
          const quote = chunk.indexOf(QUOTE, i);
          if (backslash !== -1 && backslash < i) backslash = chunk.indexOf(BACKSLASH, i);
          if (backslash !== -1 && (quote === -1 || backslash < quote)) {
            escaped = true;
            stringStart = -1;
            i = backslash + 1;
            continue;
          }
          if (quote === -1) {
            i = n;
            break;
          }
          inString = false;
          cutNext =
            cutDepth === 0 &&
            stringStart >= 0 &&
            quote - stringStart === FIELDS_V1.length &&
            isFieldsV1(chunk, stringStart);
          i = quote + 1;
          continue;
        }
        const c = chunk[i] as number;
        if (c === QUOTE) {
          inString = true;
          stringStart = i + 1;
          cutNext = false;
        } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
          depth++;
          // items[i].metadata.managedFields[j].fieldsV1 opens four levels below the item.
          if (cutNext && depth === this.#itemsDepth + 4) {
            // managedFields' field sets are most of their bytes and read by nothing: the value
            // is kept as `{}` and never parsed.
            cutNext = false;
            cutDepth = depth;
            this.#pieces.push(chunk.subarray(keep, i + 1));
            keep = -1;
          }
        } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
          cutNext = false;
          if (depth === cutDepth) {
            cutDepth = 0;
            keep = i;
          } else if (depth === this.#itemsDepth && cutDepth === 0) {
            out.push(parseItem(this.#take(chunk, keep, i + 1)));
            inItem = false;
            keep = -1;
          }
          depth--;
        } else if (c === COMMA) cutNext = false;
        i++;
        continue;
      }
      const c = chunk[i] as number;
      i++;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) {
          inString = false;
          this.#keyOpen = false;
        } else if (this.#keyOpen) this.#key.push(c);
        this.#envelope.push(c);
        continue;
      }
      if (c === QUOTE) {
        inString = true;
        if (depth === 1) {
          this.#keyOpen = true;
          this.#key = [];
        }
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        depth++;
        if (this.#itemsDepth > 0 && depth === this.#itemsDepth) {
          inItem = true;
          keep = i - 1;
          continue;
        }
        if (c === OPEN_BRACKET && depth === 2 && this.#isItemsKey()) this.#itemsDepth = 3;
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        if (this.#itemsDepth > 0 && depth === this.#itemsDepth - 1) this.#itemsDepth = 0;
        depth--;
      } else if (this.#itemsDepth > 0 && depth === this.#itemsDepth - 1) {
        // Commas and blanks between items.
        continue;
      }
      this.#envelope.push(c);
    }
    if (inItem && keep >= 0) this.#pieces.push(chunk.subarray(keep));
    this.#depth = depth;
    this.#inString = inString;
    this.#escaped = escaped;
    this.#inItem = inItem;
    this.#cutDepth = cutDepth;
    this.#cutNext = cutNext;
    return out;
  }

  /** The body without its items, parsed; throws when the body was not one complete value. */
  end(): Record<string, unknown> {
    if (this.#depth !== 0 || this.#inString || this.#inItem) {
      throw new Error("the list response ended early");
    }
    const value: unknown = JSON.parse(Buffer.from(this.#envelope).toString("utf8"));
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new Error("the list response is not an object");
    }
    return value as Record<string, unknown>;
  }

  #isItemsKey(): boolean {
    const k = this.#key;
    return k.length === 5 && String.fromCharCode(...k) === "items";
  }

  /** The kept bytes of the item that ends before `end` of this chunk. */
  #take(chunk: Buffer, keep: number, end: number): Buffer {
    if (this.#pieces.length === 0) return chunk.subarray(keep, end);
    const whole = Buffer.concat([...this.#pieces, chunk.subarray(keep, end)]);
    this.#pieces.length = 0;
    return whole;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const FIELDS_V1 = Buffer.from("fieldsV1");

/** Byte by byte: a native compare per short string costs more than the scan around it. */
function isFieldsV1(chunk: Buffer, at: number): boolean {
  for (let k = 0; k < FIELDS_V1.length; k++) {
    if (chunk[at + k] !== FIELDS_V1[k]) return false;
  }
  return true;
}

/** ASCII (nearly every object) is decoded as latin1: about twice as fast, same text. */
function parseItem(bytes: Buffer): unknown {
  return JSON.parse(bytes.toString(isAscii(bytes) ? "latin1" : "utf8"));
}
