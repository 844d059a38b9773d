import { describe, expect, it } from "vitest";
import { HpackDecoder } from "./hpack-decoder.js";
import { HeaderListTooLargeError, HpackError } from "./hpack-error.js";

const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/** A header block written as the RFC writes it: hex octets, spaces and line breaks ignored. */
function hex(text: string): Buffer {
  return Buffer.from(text.replace(/\s+/g, ""), "hex");
}

function raw(text: string): string {
  return Buffer.from(text, "latin1").toString("hex");
}

type Step = {
  block: string;
  fields: [string, string][];
  table: [string, string][];
  size: number;
};

/** Decodes the steps in order with one decoder, checking the fields and the table after each. */
function decodeSequence(decoder: HpackDecoder, steps: Step[]): void {
  for (const [i, step] of steps.entries()) {
    expect(decoder.decode(hex(step.block), NO_LIMIT), `block ${i + 1}`).toEqual(step.fields.flat());
    expect(decoder.dynamicTableEntries(), `table after block ${i + 1}`).toEqual(step.table);
    expect(decoder.dynamicTableSize, `table size after block ${i + 1}`).toBe(step.size);
  }
}

describe("HpackDecoder: RFC 7541 Appendix C", () => {
  it("C.2.1 literal with indexing adds the field to the dynamic table", () => {
    const decoder = new HpackDecoder();
    decodeSequence(decoder, [
      {
        block: "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572",
        fields: [["custom-key", "custom-header"]],
        table: [["custom-key", "custom-header"]],
        size: 55,
      },
    ]);
  });

  it("C.2.2 literal without indexing and C.2.3 never indexed leave the table alone", () => {
    const decoder = new HpackDecoder();
    decodeSequence(decoder, [
      {
        block: "040c 2f73 616d 706c 652f 7061 7468",
        fields: [[":path", "/sample/path"]],
        table: [],
        size: 0,
      },
      {
        block: "1008 7061 7373 776f 7264 0673 6563 7265 74",
        fields: [["password", "secret"]],
        table: [],
        size: 0,
      },
    ]);
  });

  it("C.2.4 indexed field from the static table", () => {
    const decoder = new HpackDecoder();
    decodeSequence(decoder, [{ block: "82", fields: [[":method", "GET"]], table: [], size: 0 }]);
  });

  it("C.3 three requests without Huffman coding, on one connection", () => {
    decodeSequence(new HpackDecoder(), requests("raw"));
  });

  it("C.4 the same three requests with Huffman coding", () => {
    decodeSequence(new HpackDecoder(), requests("huffman"));
  });

  it("C.5 three responses without Huffman coding, evicting from a 256-octet table", () => {
    decodeSequence(new HpackDecoder({ maxTableSize: 256 }), responses("raw"));
  });

  it("C.6 the same three responses with Huffman coding", () => {
    decodeSequence(new HpackDecoder({ maxTableSize: 256 }), responses("huffman"));
  });
});

function requests(coding: "raw" | "huffman"): Step[] {
  const authority: [string, string] = [":authority", "www.example.com"];
  const cacheControl: [string, string] = ["cache-control", "no-cache"];
  const custom: [string, string] = ["custom-key", "custom-value"];
  const blocks =
    coding === "raw"
      ? [
          "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
          "8286 84be 5808 6e6f 2d63 6163 6865",
          "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
        ]
      : [
          "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
          "8286 84be 5886 a8eb 1064 9cbf",
          "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
        ];
  return [
    {
      block: blocks[0] ?? "",
      fields: [[":method", "GET"], [":scheme", "http"], [":path", "/"], authority],
      table: [authority],
      size: 57,
    },
    {
      block: blocks[1] ?? "",
      fields: [[":method", "GET"], [":scheme", "http"], [":path", "/"], authority, cacheControl],
      table: [cacheControl, authority],
      size: 110,
    },
    {
      block: blocks[2] ?? "",
      fields: [
        [":method", "GET"],
        [":scheme", "https"],
        [":path", "/index.html"],
        authority,
        custom,
      ],
      table: [custom, cacheControl, authority],
      size: 164,
    },
  ];
}

function responses(coding: "raw" | "huffman"): Step[] {
  const status302: [string, string] = [":status", "302"];
  const status307: [string, string] = [":status", "307"];
  const cachePrivate: [string, string] = ["cache-control", "private"];
  const date21: [string, string] = ["date", "Mon, 21 Oct 2013 20:13:21 GMT"];
  const date22: [string, string] = ["date", "Mon, 21 Oct 2013 20:13:22 GMT"];
  const location: [string, string] = ["location", "https://www.example.com"];
  const gzip: [string, string] = ["content-encoding", "gzip"];
  const cookie: [string, string] = [
    "set-cookie",
    "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1",
  ];
  const blocks =
    coding === "raw"
      ? [
          `4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133
           2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70
           6c65 2e63 6f6d`,
          "4803 3330 37c1 c0bf",
          `88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d
           54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049
           5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e
           3d31`,
        ]
      : [
          `4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6
           2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3`,
          "4883 640e ffc1 c0bf",
          `88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab
           77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f
           9587 3160 65c0 03ed 4ee5 b106 3d50 07`,
        ];
  return [
    {
      block: blocks[0] ?? "",
      fields: [status302, cachePrivate, date21, location],
      table: [location, date21, cachePrivate, status302],
      size: 222,
    },
    {
      // Adding :status 307 evicts the oldest entry, :status 302.
      block: blocks[1] ?? "",
      fields: [status307, cachePrivate, date21, location],
      table: [status307, location, date21, cachePrivate],
      size: 222,
    },
    {
      block: blocks[2] ?? "",
      fields: [[":status", "200"], cachePrivate, date22, location, gzip, cookie],
      table: [cookie, gzip, date22],
      size: 215,
    },
  ];
}

/** RFC 7541 Appendix A, entries split by '|' or line breaks: a name, then any value. */
const APPENDIX_A = `
  :authority|:method GET|:method POST|:path /|:path /index.html|:scheme http|:scheme https
  :status 200|:status 204|:status 206|:status 304|:status 400|:status 404|:status 500
  accept-charset|accept-encoding gzip, deflate|accept-language|accept-ranges|accept
  access-control-allow-origin|age|allow|authorization|cache-control|content-disposition
  content-encoding|content-language|content-length|content-location|content-range
  content-type|cookie|date|etag|expect|expires|from|host|if-match|if-modified-since
  if-none-match|if-range|if-unmodified-since|last-modified|link|location|max-forwards
  proxy-authenticate|proxy-authorization|range|referer|refresh|retry-after|server|set-cookie
  strict-transport-security|transfer-encoding|user-agent|vary|via|www-authenticate`;

describe("HpackDecoder: static table", () => {
  it("indexes 1 to 61 as RFC 7541 Appendix A lists them", () => {
    const expected = APPENDIX_A.trim()
      .split(/\s*[|\n]\s*/)
      .flatMap((entry) => {
        const space = entry.indexOf(" ");
        return space < 0 ? [entry, ""] : [entry.slice(0, space), entry.slice(space + 1)];
      });
    expect(expected).toHaveLength(2 * 61);
    const allIndices = Buffer.from(Array.from({ length: 61 }, (_, i) => 0x80 | (i + 1)));
    expect(new HpackDecoder().decode(allIndices, NO_LIMIT)).toEqual(expected);
  });
});

describe("HpackDecoder: dynamic table", () => {
  it("evicts an entry whose name the new entry takes (RFC 7541 section 4.4)", () => {
    // Room for one entry of 40 or 42 octets, not both.
    const decoder = new HpackDecoder({ maxTableSize: 64 });
    decoder.decode(hex(`40 04 ${raw("aaaa")} 04 ${raw("bbbb")}`), NO_LIMIT);
    // Literal with indexing, name from index 62: the entry about to be evicted.
    expect(decoder.decode(hex(`7e 06 ${raw("cccccc")}`), NO_LIMIT)).toEqual(["aaaa", "cccccc"]);
    expect(decoder.dynamicTableEntries()).toEqual([["aaaa", "cccccc"]]);
    expect(decoder.dynamicTableSize).toBe(42);
  });

  it("empties the table for an entry larger than the table, and still returns the field", () => {
    const decoder = new HpackDecoder({ maxTableSize: 64 });
    decoder.decode(hex(`40 04 ${raw("aaaa")} 04 ${raw("bbbb")}`), NO_LIMIT);
    const big = "x".repeat(40);
    expect(decoder.decode(hex(`40 01 ${raw("k")} 28 ${raw(big)}`), NO_LIMIT)).toEqual(["k", big]);
    expect(decoder.dynamicTableEntries()).toEqual([]);
    expect(decoder.dynamicTableSize).toBe(0);
  });

  it("keeps a full table of the smallest entries in order as it wraps around", () => {
    // Entries of an empty name and a one-octet value: 33 octets each, 124 fit in 4096.
    const decoder = new HpackDecoder();
    for (let i = 0; i < 300; i++) {
      decoder.decode(hex(`40 00 01 ${(i % 256).toString(16).padStart(2, "0")}`), NO_LIMIT);
    }
    const entries = decoder.dynamicTableEntries();
    expect(entries).toHaveLength(124);
    expect(decoder.dynamicTableSize).toBe(124 * 33);
    expect(entries[0]).toEqual(["", String.fromCharCode(299 % 256)]);
    expect(entries[123]).toEqual(["", String.fromCharCode((299 - 123) % 256)]);
    // Index 62 + 123 = 185 is the oldest entry; one past it is out of the table.
    expect(decoder.decode(hex("ff 3a"), NO_LIMIT)).toEqual(["", String.fromCharCode(176)]);
    expect(() => decoder.decode(hex("ff 3b"), NO_LIMIT)).toThrow(/index 186 /);
  });

  it("applies dynamic table size updates at the start of a block, evicting to fit", () => {
    const decoder = new HpackDecoder({ maxTableSize: 256 });
    decodeSequence(decoder, responses("raw").slice(0, 1));
    // Shrink to 130 octets: of 222, only the newest two entries (63 + 65 = 128) stay.
    const size130 = "3f 63";
    expect(decoder.decode(hex(`${size130} 82`), NO_LIMIT)).toEqual([":method", "GET"]);
    expect(decoder.maxDynamicTableSize).toBe(130);
    expect(decoder.dynamicTableEntries()).toEqual([
      ["location", "https://www.example.com"],
      ["date", "Mon, 21 Oct 2013 20:13:21 GMT"],
    ]);
    // Two updates in one block: to 0 (emptying the table), then back up to the advertised 256.
    decoder.decode(hex("20 3f e1 01"), NO_LIMIT);
    expect(decoder.dynamicTableEntries()).toEqual([]);
    expect(decoder.maxDynamicTableSize).toBe(256);
    decodeSequence(decoder, responses("raw").slice(0, 1));
  });

  it("rejects a size update above the table size we advertised", () => {
    const decoder = new HpackDecoder();
    // 4096 is allowed; 4097 is not.
    expect(decoder.decode(hex("3f e1 1f"), NO_LIMIT)).toEqual([]);
    expect(() => decoder.decode(hex("3f e2 1f"), NO_LIMIT)).toThrow(HpackError);
    expect(() => new HpackDecoder({ maxTableSize: 100 }).decode(hex("3f 46"), NO_LIMIT)).toThrow(
      /exceeds the advertised 100/,
    );
  });

  it("rejects a size update after a header field", () => {
    const decoder = new HpackDecoder();
    expect(() => decoder.decode(hex("82 20"), NO_LIMIT)).toThrow(HpackError);
    expect(() => decoder.decode(hex("82 20"), NO_LIMIT)).toThrow(/after a header field/);
  });
});

describe("HpackDecoder: strings", () => {
  it("reads raw octets as latin1 chars, from a Uint8Array view at an offset", () => {
    const block = hex(`00 03 ${raw("x-a")} 03 e9 00 ff`);
    const backing = new Uint8Array(block.length + 5);
    backing.set(block, 5);
    const view = new Uint8Array(backing.buffer, 5, block.length);
    expect(new HpackDecoder().decode(view, NO_LIMIT)).toEqual(["x-a", "\u00e9\u0000\u00ff"]);
  });

  it("reads Huffman-coded names and values", () => {
    // C.4.3's custom-key: custom-value, without indexing.
    const block = hex("00 88 25a8 49e9 5ba9 7d7f 89 25a8 49e9 5bb8 e8b4 bf");
    expect(new HpackDecoder().decode(block, NO_LIMIT)).toEqual(["custom-key", "custom-value"]);
  });

  it("reports a Huffman error as an HpackError", () => {
    // :path with a one-octet Huffman value of eight padding bits.
    expect(() => new HpackDecoder().decode(hex("04 81 ff"), NO_LIMIT)).toThrow(HpackError);
  });
});

describe("HpackDecoder: malformed blocks", () => {
  const cases: [what: string, block: string, error: RegExp][] = [
    ["index 0", "80", /index 0 /],
    ["an indexed field beyond the tables", "be", /index 62 /],
    ["a literal name index beyond the tables", "7e 00", /index 62 /],
    ["a never-indexed name index beyond the tables", "1f 2f 00", /index 62 /],
    ["an integer cut off in its continuation", "ff", /truncated in an integer/],
    ["an integer cut off before its continuation ends", "ff 80", /truncated in an integer/],
    ["a literal with no name string", "40", /truncated before an integer/],
    ["a literal with no value string", "04", /truncated before an integer/],
    ["a string longer than the block", "04 05 61 62", /truncated in a string/],
    ["an integer above 2^31 - 1", "ff ff ff ff ff 0f", /integer overflow/],
    ["an integer of too many continuation octets", "ff 80 80 80 80 80 80 00", /integer overflow/],
  ];
  for (const [what, block, error] of cases) {
    it(`rejects ${what}`, () => {
      expect(() => new HpackDecoder().decode(hex(block), NO_LIMIT)).toThrow(HpackError);
      expect(() => new HpackDecoder().decode(hex(block), NO_LIMIT)).toThrow(error);
    });
  }

  it("accepts the largest integer and a redundant zero continuation octet", () => {
    // A string length of 127 (7f 00, a needless continuation) reads as 127 and needs the octets.
    const value = "v".repeat(127);
    expect(new HpackDecoder().decode(hex(`04 7f 00 ${raw(value)}`), NO_LIMIT)).toEqual([
      ":path",
      value,
    ]);
    // 2^31 - 1 as an index: decoded, then out of the tables rather than an overflow.
    expect(() => new HpackDecoder().decode(hex("ff 80 ff ff ff 07"), NO_LIMIT)).toThrow(
      /index 2147483647 /,
    );
  });
});

describe("HpackDecoder: header list size limit", () => {
  // C.2.1's field costs 10 + 13 + 32 = 55 octets.
  const block = hex("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572");

  it("allows a header list exactly at the limit", () => {
    expect(new HpackDecoder().decode(block, 55)).toEqual(["custom-key", "custom-header"]);
  });

  it("rejects a list over the limit with a stream-level error, not an HpackError", () => {
    const decoder = new HpackDecoder();
    let error: unknown;
    try {
      decoder.decode(block, 54);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(HeaderListTooLargeError);
    expect(error).not.toBeInstanceOf(HpackError);
    expect(error).toMatchObject({ size: 55, limit: 54 });
  });

  it("decodes the rest of an oversized block, so later blocks index the same table", () => {
    const decoder = new HpackDecoder();
    // A 1000-octet value without indexing, then C.2.1's field with indexing.
    const big = "v".repeat(1000);
    const oversized = Buffer.concat([hex(`04 7f e9 06 ${raw(big)}`), block]);
    expect(() => decoder.decode(oversized, 500)).toThrow(HeaderListTooLargeError);
    expect(decoder.dynamicTableEntries()).toEqual([["custom-key", "custom-header"]]);
    expect(decoder.decode(hex("be"), 500)).toEqual(["custom-key", "custom-header"]);
  });

  it("still reports a malformed block as an HpackError when the list is also too large", () => {
    const decoder = new HpackDecoder();
    expect(() => decoder.decode(Buffer.concat([block, hex("be be ff")]), 54)).toThrow(HpackError);
  });
});
