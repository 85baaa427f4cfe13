import { DriverError } from '@stratus/providers';
import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Operations of the fake provider a failure can be injected into. */
export type FakeOperation =
  | 'compute.create'
  | 'compute.delete'
  | 'volume.create'
  | 'volume.attach'
  | 'volume.detach'
  | 'volume.delete'
  | 'database.ensureRunning'
  | 'database.delete'
  | 'network.ensureAddress'
  | 'network.releaseAddress';

/**
 * Where an injected failure strikes: `before` anything is done, or
 * `halfway`, with part of the work done (what a crash or a lost connection
 * mid-operation leaves), so a repeat has to finish it.
 */
export type FailurePoint = 'before' | 'halfway';

/** One boot of a fake instance, from its start to when it was first seen ready. */
export interface FakeBoot {
  id: string;
  startedAt: number;
  readyAt: number | null;
}

export interface FakeControlOptions {
  /** How long a fake instance takes to boot. */
  bootMs?: number;
  /** A boot not ready this long after it started is a failure (the provider's boot timeout). */
  bootTimeoutMs?: number;
  /** How long a fake database server takes to start. */
  databaseStartMs?: number;
  /** Added to every operation, as a remote API's round trip would be. */
  latencyMs?: number;
  /** A file that gets every boot as a JSON line once it is ready (for tests that run the fake in another process). */
  bootLog?: string;
  /**
   * A file that holds what the fake "runs" (instances, volumes, servers, load
   * balancers, addresses), read when its drivers are made: a real provider's resources
   * outlive the control plane's processes, so a worker started again finds
   * them. One worker per file (per installation) at a time.
   */
  stateFile?: string;
}

/**
 * The handle a test holds on the FAKE provider: its delays, failures to
 * inject, and what it recorded. Nothing here touches the machine but the
 * optional boot log; everything the fake "runs" is in memory.
 */
export class FakeControl {
  bootMs: number;
  bootTimeoutMs: number;
  databaseStartMs: number;
  latencyMs: number;
  readonly boots: FakeBoot[] = [];
  private readonly failures: Array<{ op: FakeOperation; at: FailurePoint; error: Error }> = [];
  private readonly holds = new Map<FakeOperation, { arrive: () => void; released: Promise<void> }>();
  private readonly bootFailures: string[] = [];
  private readonly startFailures: string[] = [];
  /** Files instances write at their first boot, by instance id (what their user_data would do). */
  private readonly firstBootWrites = new Map<string, Record<string, string>>();
  /** CPU loads set on instances: a share of one core from `from` to `until` (ms). */
  private readonly cpuLoads = new Map<string, Array<{ fraction: number; from: number; until: number }>>();
  /** What the drivers saved, by driver, as the state file holds it; read at the first restore. */
  private state: Record<string, unknown> | null = null;

  constructor(private readonly opts: FakeControlOptions = {}) {
    this.bootMs = opts.bootMs ?? 0;
    this.bootTimeoutMs = opts.bootTimeoutMs ?? 60_000;
    this.databaseStartMs = opts.databaseStartMs ?? 0;
    this.latencyMs = opts.latencyMs ?? 0;
  }

  /** The next call of `op` fails at `at` with `error` (a retryable DriverError unless given). */
  failNext(op: FakeOperation, at: FailurePoint = 'before', error: Error = new DriverError('retryable', `injected failure of ${op} (${at})`)): void {
    this.failures.push({ op, at, error });
  }

  /**
   * The next call of `op` waits, before it does anything, until `release` is
   * called: a provider call slow enough for another job to run meanwhile.
   * `reached` resolves once that call is waiting.
   */
  holdNext(op: FakeOperation): { reached: Promise<void>; release: () => void } {
    let release!: () => void;
    let arrive!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const reached = new Promise<void>((resolve) => (arrive = resolve));
    this.holds.set(op, { arrive, released });
    return { reached, release };
  }

  /** The next boot that starts fails (its process "exits") with this output. */
  failNextBoot(output: string): void {
    this.bootFailures.push(output);
  }

  /** The next database server started exits while starting, with `output` as its last words. */
  failNextDatabaseStart(output: string): void {
    this.startFailures.push(output);
  }

  /** Instance `id`, at its first boot, appends `content` to the file `path` of its home (as its user_data would). */
  writeAtFirstBoot(id: string, path: string, content: string): void {
    this.firstBootWrites.set(id, { ...this.firstBootWrites.get(id), [path]: content });
  }

  /** @internal What instance `id` writes at its first boot. */
  takeFirstBootWrites(id: string): Record<string, string> {
    const writes = this.firstBootWrites.get(id) ?? {};
    this.firstBootWrites.delete(id);
    return writes;
  }

  /**
   * From now on, instance `id` keeps `fraction` of one core busy (more than 1
   * for several cores) for `seconds` (for ever when omitted), on top of any
   * load set before: what its application would do under traffic.
   */
  setCpuLoad(id: string, fraction: number, seconds = Infinity): void {
    const from = Date.now();
    this.cpuLoads.set(id, [...(this.cpuLoads.get(id) ?? []), { fraction, from, until: from + seconds * 1000 }]);
  }

  /** @internal The CPU seconds the loads set on `id` add up to at `now`. */
  cpuSeconds(id: string, now: number): number {
    let seconds = 0;
    for (const load of this.cpuLoads.get(id) ?? []) seconds += (load.fraction * Math.max(0, Math.min(now, load.until) - load.from)) / 1000;
    return seconds;
  }

  /** The most boots that were in progress at one moment. */
  maxConcurrentBoots(): number {
    const edges = this.boots.flatMap((b) => [
      { at: b.startedAt, d: 1 },
      { at: b.readyAt ?? Infinity, d: -1 },
    ]);
    // At equal times an end goes first: a boot that ended as another started did not overlap it.
    edges.sort((a, b) => a.at - b.at || a.d - b.d);
    let now = 0;
    let most = 0;
    for (const e of edges) most = Math.max(most, (now += e.d));
    return most;
  }

  /** @internal What the `kind` driver last saved in the state file; nothing without one (or before any save). */
  restore<T>(kind: string): T | undefined {
    return this.loadState()[kind] as T | undefined;
  }

  /** @internal Saves the `kind` driver's resources in the state file (whole, then renamed: a crash leaves the last one). */
  persist(kind: string, value: unknown): void {
    if (!this.opts.stateFile) return;
    const state = this.loadState();
    state[kind] = value;
    mkdirSync(dirname(this.opts.stateFile), { recursive: true });
    const next = `${this.opts.stateFile}.next`;
    writeFileSync(next, JSON.stringify(state));
    renameSync(next, this.opts.stateFile);
  }

  private loadState(): Record<string, unknown> {
    if (this.state) return this.state;
    this.state = {};
    if (!this.opts.stateFile) return this.state;
    try {
      this.state = JSON.parse(readFileSync(this.opts.stateFile, 'utf8'));
    } catch (err) {
      // None yet: nothing was made. A file that does not parse is a bug, not an empty provider.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    return this.state!;
  }

  /** @internal The drivers' round trip; a call of `op` held by holdNext waits here for its release. */
  async delay(op?: FakeOperation): Promise<void> {
    const held = op && this.holds.get(op);
    if (held) {
      this.holds.delete(op);
      held.arrive();
      await held.released;
    }
    if (this.latencyMs > 0) await sleep(this.latencyMs);
  }

  /** @internal Throws the failure injected for `op` at `at`, once. */
  strike(op: FakeOperation, at: FailurePoint): void {
    const i = this.failures.findIndex((f) => f.op === op && f.at === at);
    if (i < 0) return;
    const [failure] = this.failures.splice(i, 1);
    throw failure.error;
  }

  /** @internal The output of a database server start that is to fail, if the next one is. */
  takeDatabaseStartFailure(): string | null {
    return this.startFailures.shift() ?? null;
  }

  /** @internal The output of a boot that is to fail, if the next one is. */
  takeBootFailure(): string | null {
    return this.bootFailures.shift() ?? null;
  }

  /** @internal */
  bootStarted(id: string, at: number): FakeBoot {
    const boot = { id, startedAt: at, readyAt: null };
    this.boots.push(boot);
    return boot;
  }

  /** @internal */
  bootReady(boot: FakeBoot, at: number): void {
    if (boot.readyAt !== null) return;
    boot.readyAt = at;
    if (!this.opts.bootLog) return;
    mkdirSync(dirname(this.opts.bootLog), { recursive: true });
    appendFileSync(this.opts.bootLog, JSON.stringify(boot) + '\n');
  }
}

/** Boots recorded in a boot log (FakeControlOptions.bootLog), as another process wrote them. */
export function readBootLog(text: string): FakeBoot[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as FakeBoot);
}
