// Public API of @destination/go-compat: Go's parsing rules, so that what upstream's Go server
// accepts, rejects or prints, we do too.

// For users: Go's grammars of values (durations, host:port, IP literals, Kubernetes quantities)
// and its quoting, as upstream reads and prints them.

export { GoDurationError, parseGoDuration } from "./duration.js";
export { type HostPort, joinHostPort, splitHostPort } from "./host-port.js";
export { canonicalIP, formatIP, isIPv4Mapped, parseIP } from "./ip.js";
export { QuantityError, quantityMilliValue, quantityToWeight } from "./quantity.js";
export { goQuote } from "./quote.js";

// For authors of servers: Go's flag package, to read a command line and print its usage as
// upstream's server does.

export {
  defaultFlagValues,
  FlagError,
  type FlagKind,
  type FlagSpec,
  type FlagValues,
  formatUsage,
  HelpRequested,
  parseGoFlags,
} from "./flags.js";
