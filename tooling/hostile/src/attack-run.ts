// One attack against a running server with the canary beside it, measured from outside: how
// each attacker connection ended, what the canary saw, and the server's RSS before, during and
// after.
import type { AttackConnection, ConnectionEnd } from "./attack-connection.js";
import type { Attack } from "./attacks.js";
import { Canary, type CanaryReport } from "./canary.js";
import { FrameType } from "./http2-frames.js";
import type { ServerUnderAttack } from "./server-under-attack.js";

/** How long an attack sends: every attack ends by itself within this. */
export const ATTACK_MS = 8_000;
/** After the attack, how long the server has to give its memory back. */
export const RECOVERY_MS = 10_000;
/**
 * After the canary stops, how long the server has to see its last calls go: the cancel travels
 * from another process and may still be in flight when the canary reports. A call that leaked
 * stays open past this.
 */
export const CALLS_SETTLE_MS = 5_000;

export interface AttackOutcome {
  readonly attack: string;
  readonly connections: number;
  readonly sessions: number;
  /** How the attacker's connections ended: "GOAWAY <code>", "closed, no GOAWAY", "still open". */
  readonly ends: Readonly<Record<string, number>>;
  /** Frames the server sent the attacker, by type name, over every connection. */
  readonly framesReceived: Readonly<Record<string, number>>;
  readonly canary: CanaryReport;
  readonly rssMiB: {
    readonly baseline: number;
    readonly peak: number;
    readonly after: number;
    /** Right after the full GCs of `heapMiB` (baseline and after): garbage no longer counts. */
    readonly baselineGc: number;
    readonly afterGc: number;
  };
  /**
   * V8's used heap before and after (what of the RSS is JavaScript objects), and right after a
   * full GC before the attack and once the attacker has left: what the server held then and
   * still holds (NaN for upstream).
   */
  readonly heapMiB: {
    readonly baseline: number;
    readonly baselineGc: number;
    readonly after: number;
    readonly afterGc: number;
  };
  /** Calls still open on the server once the attacker and the canary have left (and settled). */
  readonly openCallsAfter: number;
  readonly alive: boolean;
  readonly attackMs: number;
}

const FRAME_TYPE_NAMES: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(FrameType).map(([name, type]) => [type, name]),
);

function describeEnd(end: ConnectionEnd | undefined): string {
  if (end === undefined) return "still open";
  if (end.goaway !== null) return `GOAWAY ${end.goaway}`;
  return end.closedByServer ? "closed, no GOAWAY" : "still open";
}

/** Waits for `conn` to end, at most until `deadline`. */
async function endBy(conn: AttackConnection, deadline: number): Promise<ConnectionEnd | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - Date.now()));
  });
  const end = await Promise.race([conn.ended, late]);
  clearTimeout(timer);
  return end;
}

/** Open calls once they reach 0, or as they stand after CALLS_SETTLE_MS. */
async function settledOpenCalls(server: ServerUnderAttack): Promise<number> {
  const deadline = Date.now() + CALLS_SETTLE_MS;
  let open = await server.openCalls();
  while (open > 0 && Date.now() < deadline && server.alive) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    open = await server.openCalls();
  }
  return open;
}

export async function runAttack(
  server: ServerUnderAttack,
  attack: Attack,
  connections: number,
  options: { health?: boolean } = {},
): Promise<AttackOutcome> {
  const canary = new Canary(server.grpcPort, options);
  try {
    await canary.start();
    await canary.stop(); // the warm-up round is not the attack's
    const baseline = server.rssMiB();
    const heapBaseline = await server.heapUsedMiB();
    const heapBaselineGc = await server.liveHeapMiB();
    const baselineGc = await settledRssMiB(server);
    let peak = baseline;
    const sampler = setInterval(() => {
      const rss = server.rssMiB();
      if (rss > peak) peak = rss;
    }, 100);

    await canary.start();
    const started = Date.now();
    const deadline = started + ATTACK_MS;
    const ctx = { port: server.grpcPort, deadline, connections };
    const ends = new Map<string, number>();
    const frames = new Map<string, number>();
    let sessions = 0;
    const count = (end: ConnectionEnd | undefined) => {
      const key = describeEnd(end);
      ends.set(key, (ends.get(key) ?? 0) + 1);
    };
    const attacker = async () => {
      do {
        sessions++;
        const conns = await attack.session(ctx).catch((err: unknown) => {
          // The server refusing the TCP connection is an outcome too.
          ends.set(
            `connect failed: ${String(err)}`,
            (ends.get(`connect failed: ${String(err)}`) ?? 0) + 1,
          );
          return [] as AttackConnection[];
        });
        // A session that stopped sending gives the server a moment to close it, within the deadline.
        const settled = await Promise.all(
          conns.map((c) => endBy(c, Math.min(deadline, Date.now() + 1_000))),
        );
        for (const [i, c] of conns.entries()) {
          if (settled[i] === undefined && Date.now() < deadline && !attack.once) {
            settled[i] = await endBy(c, deadline);
          }
          count(settled[i]);
          for (const [type, n] of c.received) {
            const name = FRAME_TYPE_NAMES[type] ?? `0x${type.toString(16)}`;
            frames.set(name, (frames.get(name) ?? 0) + n);
          }
          c.close();
        }
      } while (!attack.once && Date.now() < deadline);
    };
    const parallel = attack.fixedConnections ? 1 : connections;
    await Promise.all(Array.from({ length: parallel }, attacker));
    const attackMs = Date.now() - started;
    const report = await canary.stop();
    clearInterval(sampler);

    // The attacker has left: RSS should come back near where it was.
    const recoveryDeadline = Date.now() + RECOVERY_MS;
    let after = server.rssMiB();
    while (after > baseline * 1.1 && Date.now() < recoveryDeadline && server.alive) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      after = server.rssMiB();
    }
    const openCallsAfter = server.alive ? await settledOpenCalls(server) : Number.NaN;
    const heapAfter = server.alive ? await server.heapUsedMiB() : Number.NaN;
    const heapAfterGc = await server.liveHeapMiB();
    const afterGc = server.alive ? await settledRssMiB(server) : Number.NaN;
    return {
      attack: attack.name,
      connections: attack.fixedConnections ? 5_000 : connections,
      sessions,
      ends: Object.fromEntries(ends),
      framesReceived: Object.fromEntries(frames),
      canary: report,
      rssMiB: { baseline, peak, after, baselineGc, afterGc },
      heapMiB: {
        baseline: heapBaseline,
        baselineGc: heapBaselineGc,
        after: heapAfter,
        afterGc: heapAfterGc,
      },
      alive: server.alive,
      openCallsAfter,
      attackMs,
    };
  } finally {
    await canary.close();
  }
}

/**
 * RSS once it stops falling after a full GC (V8 gives freed pages back on threads of its own, a
 * moment after the collection), read every 100 ms for up to 2 s.
 */
async function settledRssMiB(server: ServerUnderAttack): Promise<number> {
  let last = server.rssMiB();
  for (let i = 0; i < 20; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = server.rssMiB();
    if (now >= last - 0.5) return Math.min(now, last);
    last = now;
  }
  return last;
}
