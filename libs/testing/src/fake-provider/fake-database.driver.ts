import { DatabaseDriver, DatabaseServerSpec, DriverError, ObservedDatabaseServer } from '@stratus/providers';
import { setTimeout as sleep } from 'node:timers/promises';
import { FakeControl } from './fake-control';

/** FAKE database servers, in memory: a server "starts" in `control.databaseStartMs` and runs until deleted. */
export class FakeDatabaseDriver implements DatabaseDriver {
  private readonly servers = new Map<string, { spec: DatabaseServerSpec; running: boolean }>();

  constructor(private readonly control: FakeControl) {
    for (const [key, server] of Object.entries(control.restore<Record<string, { spec: DatabaseServerSpec; running: boolean }>>('databases') ?? {})) this.servers.set(key, server);
  }

  /** Servers survive the worker (see FakeControlOptions.stateFile). */
  private save(): void {
    this.control.persist('databases', Object.fromEntries(this.servers));
  }

  async observe(key: string): Promise<ObservedDatabaseServer | null> {
    await this.control.delay();
    const server = this.servers.get(key);
    return server ? { running: server.running } : null;
  }

  async ensureRunning(spec: DatabaseServerSpec): Promise<ObservedDatabaseServer> {
    await this.control.delay();
    this.control.strike('database.ensureRunning', 'before');
    // The product's promise (its API says so) is that ha ends in error as "not available yet", whatever the provider.
    if (spec.ha) throw new DriverError('invalid', 'high availability (ha: true) is not available yet: the fake provider runs single servers only');
    const server = this.servers.get(spec.key) ?? { spec, running: false };
    this.servers.set(spec.key, server);
    this.save();
    if (server.running) return { running: true };
    // Halfway: laid out, not started; a repeat starts it.
    this.control.strike('database.ensureRunning', 'halfway');
    if (this.control.databaseStartMs > 0) await sleep(this.control.databaseStartMs);
    server.running = true;
    this.save();
    return { running: true };
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
