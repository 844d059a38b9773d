// Public API of @destination/go-compat: Go's parsing rules, so that what upstream's Go server
// accepts, rejects or prints, we do too.

export { GoDurationError, parseGoDuration } from "./duration.js";
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
export { type HostPort, joinHostPort, splitHostPort } from "./host-port.js";
export { canonicalIP, formatIP, isIPv4Mapped, parseIP } from "./ip.js";
export { QuantityError, quantityMilliValue, quantityToWeight } from "./quantity.js";
export { goQuote } from "./quote.js";
