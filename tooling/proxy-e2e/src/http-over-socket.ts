// HTTP/1.1 and raw TCP from the test process to an address inside a namespace, through one of
// the agent's Unix-socket bridges.
import { request } from "node:http";
import { connect } from "node:net";

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One request on a connection of its own, so every request is balanced afresh. */
export function httpGet(
  socketPath: string,
  path: string,
  headers: Record<string, string> = {},
  timeoutMs = 10_000,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath, path, method: "GET", headers: { host: "test", ...headers }, agent: false },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d) => {
          body += d;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on("error", reject);
      },
    );
    req.setTimeout(timeoutMs, () =>
      req.destroy(new Error(`GET ${path}: no answer in ${timeoutMs} ms`)),
    );
    req.on("error", reject);
    req.end();
  });
}

/** Sends `bytes`, then reads until `expectedLength` bytes came back (or the deadline). */
export function tcpExchange(
  socketPath: string,
  bytes: Buffer,
  expectedLength: number,
  timeoutMs = 10_000,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ path: socketPath });
    const chunks: Buffer[] = [];
    let length = 0;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`tcp: ${length} of ${expectedLength} bytes after ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on("connect", () => socket.write(bytes));
    socket.on("data", (d: Buffer) => {
      chunks.push(d);
      length += d.length;
      if (length >= expectedLength) {
        clearTimeout(timer);
        socket.destroy();
        resolve(Buffer.concat(chunks));
      }
    });
    socket.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      if (length < expectedLength) reject(new Error(`tcp: closed after ${length} bytes`));
    });
  });
}
