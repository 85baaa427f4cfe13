/**
 * A worker that holds this many more open gateway connections than the
 * least loaded other worker passes a new one on. Large enough that the
 * everyday jitter of short connections (a new one per request) is left
 * alone; small enough that a burst of long ones ends close to even.
 */
export const BALANCE_SLACK = 2;

/**
 * Which edge worker takes a new gateway connection. The workers accept on
 * one shared socket and the kernel decides who wins each accept: a burst of
 * keep-alive connections can land 16/0 on two workers and stay there for as
 * long as they last, one core relaying while the other idles
 * (bench/README.md, "TCP routes"). Node's round-robin fixes that by sending
 * every connection through the primary, which costs a third of the new
 * connections per second. Here a worker keeps what it accepts unless it is
 * BALANCE_SLACK above the least loaded worker it knows of; only then does the
 * connection, still unread, go to that worker through the primary.
 *
 * The others' counts come from the primary and are a few milliseconds old
 * (what it forwarded to a worker counts as that worker's until the worker
 * reports), so what this worker passed since the last view counts as theirs.
 */
export class ConnectionBalancer {
  private others = new Map<number, number>();
  private readonly passed = new Map<number, number>();

  constructor(private readonly self: number) {}

  /** The worker to pass a new connection to, when this one holds `open` and is too far ahead; null to keep it. */
  pick(open: number): number | null {
    let target: number | null = null;
    let least = Infinity;
    for (const [id, count] of this.others) {
      const load = count + (this.passed.get(id) ?? 0);
      if (load < least) {
        least = load;
        target = id;
      }
    }
    if (target === null || open < least + BALANCE_SLACK) return null;
    this.passed.set(target, (this.passed.get(target) ?? 0) + 1);
    return target;
  }

  /** The primary's latest open-connection counts of every worker, by worker id. */
  update(counts: Record<number, number>): void {
    this.others = new Map(
      Object.entries(counts)
        .map(([id, count]) => [Number(id), count] as [number, number])
        .filter(([id]) => id !== this.self),
    );
    this.passed.clear();
  }
}
