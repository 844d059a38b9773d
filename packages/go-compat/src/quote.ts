// Go's `%q` verb (strconv.Quote): the error messages of GetProfile quote the authority and the
// parse error this way, and tests compare the text byte for byte.

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

const SHORT_ESCAPES: Readonly<Record<number, string>> = {
  7: "\\a",
  8: "\\b",
  12: "\\f",
  10: "\\n",
  13: "\\r",
  9: "\\t",
  11: "\\v",
};

function hex(value: number, width: number): string {
  return value.toString(16).padStart(width, "0");
}

/** `strconv.Quote(text)`: double-quoted, with Go's escapes for non-printable characters. */
export function goQuote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '"' || char === "\\") {
      out += `\\${char}`;
    } else if (PRINTABLE.test(char)) {
      out += char;
    } else if (SHORT_ESCAPES[code] !== undefined) {
      out += SHORT_ESCAPES[code];
    } else if (code < 0x20 || code === 0x7f) {
      out += `\\x${hex(code, 2)}`;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      // A lone surrogate is not valid UTF-8; Go would see the replacement character's bytes.
      out += "\\ufffd";
    } else if (code < 0x10000) {
      out += `\\u${hex(code, 4)}`;
    } else {
      out += `\\U${hex(code, 8)}`;
    }
  }
  return `${out}"`;
}
