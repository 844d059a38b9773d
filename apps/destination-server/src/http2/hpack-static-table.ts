/**
 * The HPACK static table (RFC 7541 Appendix A): index 1 is the first entry, so the entry at
 * index `i` is `STATIC_TABLE[i - 1]`. Dynamic table indices start right after it.
 */
export const STATIC_TABLE: readonly (readonly [name: string, value: string])[] = [
  [":authority", ""],
  [":method", "GET"],
  [":method", "POST"],
  [":path", "/"],
  [":path", "/index.html"],
  [":scheme", "http"],
  [":scheme", "https"],
  [":status", "200"],
  [":status", "204"],
  [":status", "206"],
  [":status", "304"],
  [":status", "400"],
  [":status", "404"],
  [":status", "500"],
  ["accept-charset", ""],
  ["accept-encoding", "gzip, deflate"],
  ["accept-language", ""],
  ["accept-ranges", ""],
  ["accept", ""],
  ["access-control-allow-origin", ""],
  ["age", ""],
  ["allow", ""],
  ["authorization", ""],
  ["cache-control", ""],
  ["content-disposition", ""],
  ["content-encoding", ""],
  ["content-language", ""],
  ["content-length", ""],
  ["content-location", ""],
  ["content-range", ""],
  ["content-type", ""],
  ["cookie", ""],
  ["date", ""],
  ["etag", ""],
  ["expect", ""],
  ["expires", ""],
  ["from", ""],
  ["host", ""],
  ["if-match", ""],
  ["if-modified-since", ""],
  ["if-none-match", ""],
  ["if-range", ""],
  ["if-unmodified-since", ""],
  ["last-modified", ""],
  ["link", ""],
  ["location", ""],
  ["max-forwards", ""],
  ["proxy-authenticate", ""],
  ["proxy-authorization", ""],
  ["range", ""],
  ["referer", ""],
  ["refresh", ""],
  ["retry-after", ""],
  ["server", ""],
  ["set-cookie", ""],
  ["strict-transport-security", ""],
  ["transfer-encoding", ""],
  ["user-agent", ""],
  ["vary", ""],
  ["via", ""],
  ["www-authenticate", ""],
];

/** The number of static entries; index `STATIC_TABLE_LENGTH + 1` is the newest dynamic entry. */
export const STATIC_TABLE_LENGTH = 61;

const nameIndex = new Map<string, number>();
const fieldIndex = new Map<string, Map<string, number>>();
STATIC_TABLE.forEach(([name, value], i) => {
  const index = i + 1;
  if (!nameIndex.has(name)) nameIndex.set(name, index);
  let byValue = fieldIndex.get(name);
  if (byValue === undefined) {
    byValue = new Map();
    fieldIndex.set(name, byValue);
  }
  byValue.set(value, index);
});

/** Name → the lowest static index with that name, for a literal with an indexed name. */
export const STATIC_NAME_INDEX: ReadonlyMap<string, number> = nameIndex;

/**
 * Name → value → static index, for a field the static table holds exactly. Nested rather than
 * keyed by a joined string so that a lookup does not build a string per header field.
 */
export const STATIC_FIELD_INDEX: ReadonlyMap<string, ReadonlyMap<string, number>> = fieldIndex;
