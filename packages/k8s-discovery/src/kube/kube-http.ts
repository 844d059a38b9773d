import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import { DEFAULT_API_SILENCE_TIMEOUT_MS, keepAliveIdleMs } from "./api-liveness.js";
import { isProtobuf } from "./api-resource.js";
import { apiServerOf, type KubeConfig } from "./kube-config.js";
import { parseProtobufStatus } from "./protobuf-decode.js";
import { KubeApiError, type KubeStatus, toStatus } from "./watch-event.js";

export { KubeApiError };

/** A request to the API server; `path` starts at `/api` or `/apis`. */
export interface KubeRequest {
  readonly method?: "GET" | "POST" | "PUT" | "DELETE";
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly accept?: string;
  readonly body?: unknown;
  readonly signal?: AbortSignal;
  /** Abort when the whole exchange takes longer; requests other than watches get a default. */
  readonly timeoutMs?: number;
  /** Response headers must arrive within this; the client's silence bound by default. */
  readonly headersTimeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const IDLE_SOCKET_TIMEOUT_MS = 5_000;
const USER_AGENT = "destination/k8s-discovery";

export interface KubeHttpOptions {
  /** A free socket kept for reuse is closed after this long; 5 s by default. */
  readonly idleSocketTimeoutMs?: number;
  /**
   * The liveness bound (`api-liveness.ts`): response headers must arrive within it, and every
   * socket gets TCP keepalive so that a dead path fails within it. 12 s by default.
   */
  readonly silenceTimeoutMs?: number;
}

/** No response headers from the API server within the silence bound. */
export class ApiSilenceError extends Error {
  constructor(path: string, ms: number) {
    super(`${path}: no answer from the API server within ${ms / 1000} s`);
    this.name = "ApiSilenceError";
  }
}

/**
 * The few calls the backend makes, over node's http(s). Every request gets its TLS options and
 * credentials from client-node's `KubeConfig.applyToHTTPSOptions`, called per request, so what
 * client-node re-reads (certificate files each time, the service-account token every minute,
 * exec credentials when they expire) is picked up by the next request.
 */
export class KubeHttpClient {
  readonly #config: KubeConfig;
  readonly #server: URL;
  /**
   * Connections kept for reuse. Node's global agent closes one after 5 s idle by giving every
   * socket a timeout, which a socket in use re-arms at every chunk read, and the API server
   * sends lists in chunks of at most 2 KB (~15k timer updates for 10k pods). This agent sets
   * the timeout only while a socket is idle; requests end on their own deadlines and guards
   * (`timeoutMs`, the silence bound of `api-liveness.ts`).
   */
  readonly #agent: http.Agent;
  readonly #silenceMs: number;
  readonly #keepAliveIdleMs: number;
  /** A `proxy-url`: the agent client-node makes per request is then the one that connects. */
  readonly #proxied: boolean;

  constructor(config: KubeConfig, options: KubeHttpOptions = {}) {
    this.#config = config;
    this.#server = new URL(apiServerOf(config));
    this.#proxied = Boolean(config.getCurrentCluster()?.proxyUrl);
    this.#silenceMs = options.silenceTimeoutMs ?? DEFAULT_API_SILENCE_TIMEOUT_MS;
    this.#keepAliveIdleMs = keepAliveIdleMs(this.#silenceMs);
    // The agent turns TCP keepalive on for each socket it opens, with this idle time.
    const keepAlive = { keepAlive: true, keepAliveMsecs: this.#keepAliveIdleMs };
    this.#agent =
      this.#server.protocol === "http:" ? new http.Agent(keepAlive) : new https.Agent(keepAlive);
    // The agent destroys a free socket whose timeout fires; a request that takes one clears it.
    const idleMs = options.idleSocketTimeoutMs ?? IDLE_SOCKET_TIMEOUT_MS;
    this.#agent.on("free", (socket: Socket) => socket.setTimeout(idleMs));
  }

  /** The JSON body of a 2xx response; anything else throws `KubeApiError`. */
  async json<T>(request: KubeRequest): Promise<T> {
    const response = await this.open({
      ...request,
      timeoutMs: request.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    });
    const text = (await readBody(response)).toString("utf8");
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new Error(`${request.path}: the response is not JSON`);
    }
  }

  /**
   * A 2xx response with its body unread, for streaming; anything else throws `KubeApiError`.
   * The caller consumes or destroys the body.
   */
  async open(request: KubeRequest): Promise<IncomingMessage> {
    const url = new URL(this.#server);
    url.pathname = `${url.pathname.replace(/\/$/, "")}${request.path}`;
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const body = request.body === undefined ? undefined : JSON.stringify(request.body);
    const options: https.RequestOptions = {
      method: request.method ?? "GET",
      headers: {
        Accept: request.accept ?? "application/json",
        "User-Agent": USER_AGENT,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
    };
    await this.#config.applyToHTTPSOptions(options);
    // client-node also sets a new agent, made of the same TLS options, on every call. Without a
    // proxy, the kept-alive agent connects instead: node passes the request's TLS options to the
    // connection and pools connections by them, so a rotated certificate opens a new one.
    if (!this.#proxied) options.agent = this.#agent;
    const signals = [request.signal, timeoutSignal(request.timeoutMs)].filter(
      (s): s is AbortSignal => s !== undefined,
    );
    if (signals.length > 0) options.signal = AbortSignal.any(signals);
    const transport = url.protocol === "http:" ? http : https;
    const silenceMs = request.headersTimeoutMs ?? this.#silenceMs;
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      // A server (or a proxy) that accepts and never answers, or a dead kept-alive socket that
      // our request went into: TCP keepalive does not probe while our bytes are unacknowledged.
      const deadline = setTimeout(
        () => req.destroy(new ApiSilenceError(request.path, silenceMs)),
        silenceMs,
      );
      const req = transport.request(url, options, (res) => {
        clearTimeout(deadline);
        resolve(res);
      });
      req.on("socket", (socket) => {
        if (options.agent === this.#agent) socket.setTimeout(0);
        // Explicit, whichever agent connected (client-node's for a proxy-url): a path that
        // dies without a reset fails the socket within the silence bound.
        socket.setKeepAlive(true, this.#keepAliveIdleMs);
      });
      req.on("error", (err) => {
        clearTimeout(deadline);
        reject(err);
      });
      req.end(body);
    });
    const code = response.statusCode ?? 0;
    if (code >= 200 && code < 300) {
      // A socket that fails mid-body (TCP keepalive's ETIMEDOUT) only shows as "aborted" on
      // the response; its own error is kept to say why.
      const socket = response.socket;
      const onError = (err: Error) => socketErrors.set(response, err);
      socket.once("error", onError);
      response.once("close", () => socket.off("error", onError));
      return response;
    }
    const answer = await readBody(response).catch(() => Buffer.alloc(0));
    let status: KubeStatus = {};
    if (isProtobuf(response.headers["content-type"])) status = parseProtobufStatus(answer);
    else {
      const text = answer.toString("utf8");
      try {
        status = toStatus(JSON.parse(text));
      } catch {
        status = text ? { message: text.slice(0, 200) } : {};
      }
    }
    throw new KubeApiError(code, status, request.path);
  }
}

const socketErrors = new WeakMap<IncomingMessage, Error>();

/** What failed the connection of a response that was cut mid-body, when its socket said. */
export function connectionErrorOf(response: IncomingMessage): Error | undefined {
  return socketErrors.get(response);
}

function timeoutSignal(ms: number | undefined): AbortSignal | undefined {
  return ms === undefined ? undefined : AbortSignal.timeout(ms);
}

async function readBody(response: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
