/** A flag value the server cannot start with; the message is the one line printed. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}
