/**
 * `grpc-message` as the protocol asks for it: UTF-8, every byte outside printable ASCII and `%`
 * itself percent-encoded, as grpc-go writes it; clients percent-decode. A space at either end is
 * encoded too: HTTP/2 forbids a header value that starts or ends with whitespace, and node drops
 * the header (`Invalid authority: ` for an empty path would arrive as no message at all).
 */
export function encodeGrpcMessage(message: string): string {
  const last = message.length - 1;
  let plain = true;
  for (let i = 0; i <= last; i++) {
    if (mustEncode(message.charCodeAt(i), i === 0 || i === last)) {
      plain = false;
      break;
    }
  }
  if (plain) return message;
  const bytes = Buffer.from(message, "utf8");
  let encoded = "";
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    encoded += mustEncode(byte, i === 0 || i === bytes.length - 1)
      ? `%${byte.toString(16).toUpperCase().padStart(2, "0")}`
      : String.fromCharCode(byte);
  }
  return encoded;
}

function mustEncode(code: number, atEnd: boolean): boolean {
  return code < 0x20 || code > 0x7e || code === 0x25 || (atEnd && code === 0x20);
}
