/**
 * A header block that cannot be decoded (RFC 7541 section 2.3.3, section 5, section 6). The decoder's dynamic table
 * may now differ from the peer's, so the caller ends the connection with COMPRESSION_ERROR.
 */
export class HpackError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "HpackError";
  }
}

/**
 * A header block that decoded correctly, dynamic table included, but whose header list is larger
 * than the limit given to the decoder. The connection can go on; the caller resets only the stream.
 * Deliberately not an `HpackError`, so that one `instanceof` check cannot confuse the two.
 */
export class HeaderListTooLargeError extends Error {
  /** Octets as SETTINGS_MAX_HEADER_LIST_SIZE counts them: name + value + 32 per field. */
  readonly size: number;
  readonly limit: number;
  constructor(size: number, limit: number) {
    super(`header list of ${size} octets exceeds the limit of ${limit}`);
    this.name = "HeaderListTooLargeError";
    this.size = size;
    this.limit = limit;
  }
}
