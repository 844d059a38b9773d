// The endpoint set a proxy would hold, rebuilt from the Get stream: adds are upserts, removes
// are deletes. Each applied update yields the rows to show, marked with what it changed.
import {
  create,
  equals,
  ipAddressToBytes,
  type TcpAddress,
  tcpAddressToString,
  type Update,
  type WeightedAddr,
  WeightedAddrSchema,
} from "@destination/proto";

export type EndpointMark = "added" | "changed" | "removed" | "unchanged";

export interface MarkedEndpoint {
  readonly endpoint: WeightedAddr;
  readonly mark: EndpointMark;
}

export interface EndpointSetView {
  /** The current endpoints plus those the last update removed (shown once), in address order. */
  readonly rows: readonly MarkedEndpoint[];
  /** The set-level metric labels of the latest add (`namespace`, `service`, …). */
  readonly setLabels: Readonly<Record<string, string>>;
  readonly size: number;
  readonly added: number;
  readonly changed: number;
  readonly removed: number;
}

export class EndpointSet {
  private readonly current = new Map<string, WeightedAddr>();
  private marks = new Map<string, EndpointMark>();
  private removed = new Map<string, WeightedAddr>();
  private setLabels: Readonly<Record<string, string>> = {};

  /** Applies one message; the marks describe this message only. */
  apply(update: Update): EndpointSetView {
    this.marks = new Map();
    this.removed = new Map();
    switch (update.update.case) {
      case "add":
        this.setLabels = { ...update.update.value.metricLabels };
        for (const endpoint of update.update.value.addrs) this.upsert(endpoint);
        break;
      case "remove":
        for (const addr of update.update.value.addrs) this.delete(endpointKey(addr), addr);
        break;
      case "noEndpoints":
        for (const [key, endpoint] of [...this.current]) this.delete(key, endpoint.addr);
        break;
      default:
        break;
    }
    return this.view();
  }

  view(): EndpointSetView {
    const rows: MarkedEndpoint[] = [
      ...[...this.current].map(([key, endpoint]) => ({
        endpoint,
        mark: this.marks.get(key) ?? "unchanged",
      })),
      ...[...this.removed.values()].map((endpoint) => ({ endpoint, mark: "removed" as const })),
    ].sort((a, b) => compareAddresses(a.endpoint.addr, b.endpoint.addr));
    const count = (mark: EndpointMark) => rows.filter((row) => row.mark === mark).length;
    return {
      rows,
      setLabels: this.setLabels,
      size: this.current.size,
      added: count("added"),
      changed: count("changed"),
      removed: count("removed"),
    };
  }

  private upsert(endpoint: WeightedAddr): void {
    const key = endpointKey(endpoint.addr);
    const previous = this.current.get(key);
    this.current.set(key, endpoint);
    if (previous === undefined) {
      this.marks.set(key, "added");
    } else if (this.marks.get(key) !== "added" && !equals(WeightedAddrSchema, previous, endpoint)) {
      this.marks.set(key, "changed");
    }
  }

  private delete(key: string, addr: WeightedAddr["addr"]): void {
    if (this.removed.has(key)) return;
    const previous = this.current.get(key);
    this.current.delete(key);
    this.marks.delete(key);
    // A remove for an address never added is still shown: the proxy would see it too.
    this.removed.set(key, previous ?? create(WeightedAddrSchema, { addr }));
  }
}

// Identity and order of an endpoint in a set: its ip:port, sorted numerically.
/** `ip:port` (`[v6]:port`), or a placeholder for an address the server left without an IP. */
export function endpointKey(addr: TcpAddress | undefined): string {
  if (addr?.ip === undefined) return `?:${addr?.port ?? 0}`;
  try {
    return tcpAddressToString(addr);
  } catch {
    return `?:${addr.port}`;
  }
}

function ipBytes(addr: TcpAddress | undefined): Uint8Array {
  if (addr?.ip === undefined) return new Uint8Array();
  try {
    return ipAddressToBytes(addr.ip);
  } catch {
    return new Uint8Array();
  }
}

/** IPv4 before IPv6, then by address bytes, then by port. */
export function compareAddresses(a: TcpAddress | undefined, b: TcpAddress | undefined): number {
  const left = ipBytes(a);
  const right = ipBytes(b);
  if (left.length !== right.length) return left.length - right.length;
  for (let i = 0; i < left.length; i++) {
    const diff = (left[i] ?? 0) - (right[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return (a?.port ?? 0) - (b?.port ?? 0);
}
