// A DNS server for a test's network namespace (plain JavaScript, for ns-agent.mjs): A records
// for the names it is given, as cluster DNS answers for a headless Service (one address per
// ready pod). A known name asked for another type (SRV, AAAA) gets an empty answer, so a
// resolver falls back to A; any other name gets NXDOMAIN. UDP only: the answers are small.
import { createSocket } from "node:dgram";

const TYPE_A = 1;
const CLASS_IN = 1;
const TTL_SECONDS = 5;

/** The question's name (lower case, no trailing dot), its type, and where the question ends. */
function readQuestion(msg) {
  const labels = [];
  let at = 12;
  for (;;) {
    const len = msg[at];
    if (len === undefined) throw new Error("truncated question");
    at += 1;
    if (len === 0) break;
    labels.push(
      msg
        .subarray(at, at + len)
        .toString("ascii")
        .toLowerCase(),
    );
    at += len;
  }
  return { name: labels.join("."), type: msg.readUInt16BE(at), end: at + 4 };
}

/** The answer to one query: `table` maps a name (no trailing dot) to its IPv4 addresses. */
function answer(query, table) {
  const { name, type, end } = readQuestion(query);
  const addresses = table.get(name);
  const found = addresses !== undefined;
  const ips = found && type === TYPE_A ? addresses : [];
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0); // id
  header[2] = 0x84 | (query[2] & 0x01); // a response, authoritative, RD as asked
  header[3] = 0x80 | (found ? 0 : 3); // recursion available; NOERROR or NXDOMAIN
  header.writeUInt16BE(1, 4); // the question, echoed
  header.writeUInt16BE(ips.length, 6);
  const answers = ips.map((ip) => {
    const rr = Buffer.alloc(16);
    rr.writeUInt16BE(0xc00c, 0); // the question's name
    rr.writeUInt16BE(TYPE_A, 2);
    rr.writeUInt16BE(CLASS_IN, 4);
    rr.writeUInt32BE(TTL_SECONDS, 6);
    rr.writeUInt16BE(4, 10);
    ip.split(".").forEach((octet, i) => {
      rr[12 + i] = Number(octet);
    });
    return rr;
  });
  return Buffer.concat([header, query.subarray(12, end), ...answers]);
}

/** Serves `records` ({ "name.": ["10.0.0.1", …] }) on host:port over UDP; resolves once bound. */
export function serveDns(host, port, records) {
  const table = new Map(
    Object.entries(records).map(([name, ips]) => [name.replace(/\.$/, "").toLowerCase(), ips]),
  );
  const socket = createSocket("udp4");
  socket.on("message", (msg, peer) => {
    try {
      socket.send(answer(msg, table), peer.port, peer.address);
    } catch {
      // Not a query we can read: no answer, as from a server that dropped it.
    }
  });
  return new Promise((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(port, host, () => resolve({ close: (done) => socket.close(done) }));
  });
}
