import { describe, expect, it } from "vitest";
import { encodeGrpcMessage } from "./grpc-message-header.js";

describe("encodeGrpcMessage", () => {
  it("leaves printable ASCII as it is", () => {
    expect(encodeGrpcMessage('Service web.ns not found: "x" [y]')).toBe(
      'Service web.ns not found: "x" [y]',
    );
  });

  it("percent-encodes UTF-8 bytes, control characters and % itself", () => {
    expect(encodeGrpcMessage("smile 😀 100%\n")).toBe("smile %F0%9F%98%80 100%25%0A");
  });

  it("percent-encodes a space at either end, which HTTP/2 would not carry", () => {
    expect(encodeGrpcMessage("Invalid authority: ")).toBe("Invalid authority:%20");
    expect(encodeGrpcMessage(" x y ")).toBe("%20x y%20");
    expect(encodeGrpcMessage(" ")).toBe("%20");
  });

  it("decodes back to the message", () => {
    for (const message of ["Invalid authority: ", "ünïcödé 😀 %41", "\t tab"]) {
      expect(decodeURIComponent(encodeGrpcMessage(message))).toBe(message);
    }
  });
});
