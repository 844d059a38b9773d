import type { LogLevel, ServerLogger } from "./server-logger.js";

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
