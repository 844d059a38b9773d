// A small HTTP(S) client over node:http/https: enough for the API server (client-cert or token
// auth) and etcd's JSON gateway. One connection per request (agent: false), so nothing lingers.
import http from "node:http";
import https from "node:https";

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface HttpRequestOptions {
  method: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  ca?: string;
  cert?: string;
  key?: string;
  token?: string;
  timeoutMs?: number;
}

export function httpRequest(url: string, opts: HttpRequestOptions): Promise<HttpResponse> {
  const u = new URL(url);
  const headers: Record<string, string> = { accept: "application/json", ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers["content-length"] = String(Buffer.byteLength(opts.body));
  const mod = u.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(
      u,
      {
        method: opts.method,
        headers,
        agent: false,
        ...(u.protocol === "https:" ? { ca: opts.ca, cert: opts.cert, key: opts.key } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    req.setTimeout(opts.timeoutMs ?? 30_000, () =>
      req.destroy(new Error(`k8s-env: ${opts.method} ${url} timed out`)),
    );
    req.on("error", reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}
