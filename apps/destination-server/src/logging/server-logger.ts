import type { Logger } from "@destination/core";

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "panic"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = "json" | "text";

const SEVERITY: Readonly<Record<LogLevel, number>> = {
  trace: 0,
  debug: 1,
  info: 2,
  warn: 3,
  error: 4,
  fatal: 5,
  panic: 6,
};

export interface LogSink {
  write(line: string): unknown;
}

export interface ServerLoggerOptions {
  level?: LogLevel;
  format?: LogFormat;
  /** Where lines go; stderr by default. */
  sink?: LogSink;
  /** Fields on every line (e.g. `{component: "grpc"}`). */
  fields?: Record<string, unknown>;
}

/** The structured logger of the server: levels, json or logfmt-style text, child fields. */
export interface ServerLogger extends Logger {
  trace(message: string, fields?: Record<string, unknown>): void;
  enabled(level: LogLevel): boolean;
  child(fields: Record<string, unknown>): ServerLogger;
}

function isLogLevel(text: string): text is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(text);
}

function stringify(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (typeof value === "string") return value;
  if (typeof value === "bigint") return value.toString();
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function textValue(value: unknown): string {
  const text = stringify(value);
  return /^[A-Za-z0-9_.:/@+-]+$/.test(text) ? text : JSON.stringify(text);
}

function jsonValue(value: unknown): unknown {
  if (value instanceof Error) return value.message;
  if (typeof value === "bigint") return value.toString();
  return value;
}

export function createServerLogger(options: ServerLoggerOptions = {}): ServerLogger {
  const threshold = SEVERITY[options.level ?? "info"];
  const format = options.format ?? "text";
  const sink = options.sink ?? process.stderr;
  const base = options.fields ?? {};

  const log = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (SEVERITY[level] < threshold) return;
    const time = new Date().toISOString();
    const all = { ...base, ...fields };
    let line: string;
    if (format === "json") {
      const record: Record<string, unknown> = { time, level, msg: message };
      for (const [k, v] of Object.entries(all)) record[k] = jsonValue(v);
      line = JSON.stringify(record);
    } else {
      line = `time="${time}" level=${level} msg=${JSON.stringify(message)}`;
      for (const [k, v] of Object.entries(all)) {
        if (v !== undefined) line += ` ${k}=${textValue(v)}`;
      }
    }
    try {
      sink.write(`${line}\n`);
    } catch {
      // A closed stderr must not take the server down.
    }
  };

  return {
    trace: (m, f) => log("trace", m, f),
    debug: (m, f) => log("debug", m, f),
    info: (m, f) => log("info", m, f),
    warn: (m, f) => log("warn", m, f),
    error: (m, f) => log("error", m, f),
    enabled: (level) => SEVERITY[level] >= threshold,
    child: (fields) => createServerLogger({ ...options, fields: { ...base, ...fields } }),
  };
}

/**
 * What logrus' ParseLevel accepts (upstream parses `-log-level` with it): the names in any
 * case, and `warning` for `warn`. Undefined for anything else, which upstream refuses.
 */
export function parseLogLevelFlag(text: string): LogLevel | undefined {
  const name = text.toLowerCase();
  if (name === "warning") return "warn";
  return isLogLevel(name) ? name : undefined;
}

/**
 * Upstream logs JSON for exactly `json` and plain text for every other value (`JSON`, `xml`,
 * empty), without complaint; `known` says whether the value was one of the documented ones.
 */
export function parseLogFormatFlag(text: string): { format: LogFormat; known: boolean } {
  if (text === "json") return { format: "json", known: true };
  return { format: "text", known: text === "plain" || text === "text" };
}

/**
 * A child logger made on its first enabled line: a Get's logger mostly logs nothing, and making
 * a child per call showed in profiles of cold Gets. Lines below the parent's level are dropped
 * before the child exists; a child logs at its parent's level, so nothing else changes.
 */
export class LazyChildLogger implements ServerLogger {
  readonly #parent: ServerLogger;
  readonly #fields: Record<string, unknown>;
  #child: ServerLogger | undefined;

  constructor(parent: ServerLogger, fields: Record<string, unknown>) {
    this.#parent = parent;
    this.#fields = fields;
  }

  trace(message: string, fields?: Record<string, unknown>): void {
    if (this.#parent.enabled("trace")) this.#made().trace(message, fields);
  }

  debug(message: string, fields?: Record<string, unknown>): void {
    if (this.#parent.enabled("debug")) this.#made().debug(message, fields);
  }

  info(message: string, fields?: Record<string, unknown>): void {
    if (this.#parent.enabled("info")) this.#made().info(message, fields);
  }

  warn(message: string, fields?: Record<string, unknown>): void {
    if (this.#parent.enabled("warn")) this.#made().warn(message, fields);
  }

  error(message: string, fields?: Record<string, unknown>): void {
    if (this.#parent.enabled("error")) this.#made().error(message, fields);
  }

  enabled(level: LogLevel): boolean {
    return this.#parent.enabled(level);
  }

  child(fields: Record<string, unknown>): ServerLogger {
    return this.#made().child(fields);
  }

  #made(): ServerLogger {
    this.#child ??= this.#parent.child(this.#fields);
    return this.#child;
  }
}
