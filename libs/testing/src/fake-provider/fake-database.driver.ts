import { DatabaseDriver, DatabaseServerSpec, DriverError, ObservedDatabaseServer } from '@stratus/providers';
import { FakeBoot, FakeControl } from './fake-control';

interface FakeServer {
  spec: DatabaseServerSpec;
  running: boolean;
  /** When its start began; null once it is ready (or before it was started). */
  startedAt: number | null;
  /** Its start as the boot log records it (under the server key). */
  start?: FakeBoot;
  /** Its start failed ("exited while starting") with this output; the next look reports it. */
  failed?: string;
}

/**
 * FAKE database servers, in memory: a server "starts" for
 * `control.databaseStartMs` (ensureRunning meanwhile says `ready: false`,
 * as a real start does) and runs until deleted.
 */
export class FakeDatabaseDriver implements DatabaseDriver {
  private readonly servers = new Map<string, FakeServer>();

  constructor(private readonly control: FakeControl) {
    for (const [key, server] of Object.entries(control.restore<Record<string, FakeServer>>('databases') ?? {})) this.servers.set(key, server);
  }

  /** Servers survive the worker (see FakeControlOptions.stateFile). */
  private save(): void {
    this.control.persist('databases', Object.fromEntries(this.servers));
  }

  async observe(key: string): Promise<ObservedDatabaseServer | null> {
    await this.control.delay();
    const server = this.servers.get(key);
    return server ? this.observed(server) : null;
  }

  async ensureRunning(spec: DatabaseServerSpec): Promise<ObservedDatabaseServer> {
    await this.control.delay();
    this.control.strike('database.ensureRunning', 'before');
    // Three members and a failover are not simulated here: an ha database ends in error saying so,
    // never a single fake server posing as one (the local provider runs PostgreSQL's and ClickHouse's for real).
    if (spec.ha) throw new DriverError('invalid', 'high availability (ha: true) is not simulated by the fake provider: it runs single servers only');
    const server = this.servers.get(spec.key) ?? { spec, running: false, startedAt: null };
    this.servers.set(spec.key, server);
    this.save();
    if (server.failed !== undefined) {
      // Never came up: nothing of it is left, as the local provider's rule is.
      this.servers.delete(spec.key);
      this.save();
      throw new DriverError('invalid', `${spec.engine} server exited while starting; last output: ${JSON.stringify(server.failed)}`);
    }
    if (!server.running) {
      // Halfway: laid out, not started; a repeat starts it.
      this.control.strike('database.ensureRunning', 'halfway');
      const failure = this.control.takeDatabaseStartFailure();
      if (failure !== null) {
        server.failed = failure;
        this.save();
        return { running: false, ready: false };
      }
      server.running = true;
      server.startedAt = Date.now();
      server.start = this.control.bootStarted(spec.key, server.startedAt);
    }
    if (server.startedAt !== null && Date.now() - server.startedAt >= this.control.databaseStartMs) {
      if (server.start) this.control.bootReady(server.start, server.startedAt + this.control.databaseStartMs);
      server.startedAt = null;
    }
    this.save();
    return this.observed(server);
  }

  private observed(server: FakeServer): ObservedDatabaseServer {
    return { running: server.running, ready: server.running && server.startedAt === null };
  }

  async delete(key: string): Promise<void> {
    await this.control.delay();
    this.control.strike('database.delete', 'before');
    const server = this.servers.get(key);
    if (!server) return;
    // Halfway: stopped, data not yet removed; a repeat removes it.
    server.running = false;
    this.save();
    this.control.strike('database.delete', 'halfway');
    this.servers.delete(key);
    this.save();
  }
}
