import { databaseServerKey, ManagedDatabase, ManagedDatabaseLifecycle, NotFound } from '@stratus/core';
import { DATABASE_DRIVER, DatabaseDriver, DriverError, NETWORK_DRIVER, NetworkDriver, TURN_SESSION_NAME } from '@stratus/providers';
import { postgresRequest, useWorkerOnFake, waitFor } from '@stratus/testing';
import { WorkerModule } from '../worker.module';
import { DatabasesProcessor } from './databases.processor';
import { DatabasesReconciler } from './databases.reconciler';

/*
 * The databases processor and reconciler as the worker runs them, in this
 * process on the fake provider: creates and deletes go through
 * ManagedDatabaseLifecycle (as the api's routes do), every assertion waits
 * for the queues to drain. One engine is enough here: the processor does not
 * tell them apart, the driver does.
 */
describe('managed databases on the fake provider', () => {
  const w = useWorkerOnFake('databases', (config) => WorkerModule.register(config));
  const lives = () => w.get(ManagedDatabaseLifecycle);
  const driver = () => w.get<DatabaseDriver>(DATABASE_DRIVER);
  const network = () => w.get<NetworkDriver>(NETWORK_DRIVER);
  const row = (id: number) => w.db.getRepository(ManagedDatabase).findOneByOrFail({ id });

  /**
   * Once the delete asked for meanwhile has gone through (without turns) or
   * its job waits for the database's turn, held by the step that called this.
   */
  async function deleteWaitsOrDone(id: number): Promise<void> {
    await waitFor(
      `the delete of database ${id} to be done or to wait for its turn`,
      async () => {
        if (!(await w.db.getRepository(ManagedDatabase).existsBy({ id }))) return true;
        const [{ waiting }] = await w.db.query(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = $1 AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
          [TURN_SESSION_NAME],
        );
        return waiting > 0;
      },
      { timeoutMs: 60_000, intervalMs: 20 },
    );
  }

  async function ready(name: string): Promise<ManagedDatabase> {
    const { row: created } = await lives().create('postgres', postgresRequest(name), w.principal);
    await w.drained();
    const now = await row(created.id);
    expect(now.status).toBe('ready');
    return now;
  }

  it('provisions a server to ready, publishing its address only then, and deletes it', async () => {
    const { row: created, password } = await lives().create('postgres', postgresRequest('orders'), w.principal);
    expect(created).toMatchObject({ status: 'provisioning', floatingIp: null, version: '16' });
    expect(created.passwordVerifier).not.toContain(password);
    await w.drained();
    const provisioned = await row(created.id);
    expect(created.address).toBeNull();
    expect(provisioned.address).not.toBeNull();
    expect(provisioned).toMatchObject({ status: 'ready', statusReason: null, floatingIp: provisioned.address });
    const key = databaseServerKey(created);
    expect(await driver().observe(key)).toEqual({ running: true, ready: true });

    await lives().delete(['postgres'], String(created.id), w.principal);
    await w.drained();
    expect(await w.db.getRepository(ManagedDatabase).existsBy({ id: created.id })).toBe(false);
    expect(await network().observe(key)).toBeNull();
    expect(await driver().observe(key)).toBeNull();
  });

  it("finds a server by an id of ten digits, and none past the id column's range", async () => {
    await w.db.query(`SELECT setval(pg_get_serial_sequence('managed_databases', 'id'), 2147483000)`);
    const { row: created } = await lives().create('postgres', postgresRequest('ten-digits'), w.principal);
    expect(String(created.id)).toHaveLength(10);
    expect((await lives().get(['postgres'], String(created.id), w.principal)).id).toBe(created.id);
    await expect(lives().get(['postgres'], '2147483648', w.principal)).rejects.toThrow(NotFound);
    await lives().delete(['postgres'], String(created.id), w.principal);
    await w.drained();
  });

  it('a server the provider cannot make ends in error with the reason', async () => {
    const { row: created } = await lives().create('postgres', postgresRequest('replicated', { ha: true }), w.principal);
    await w.drained();
    expect(await row(created.id)).toMatchObject({ status: 'error', floatingIp: null });
    expect((await row(created.id)).statusReason).toMatch(/^high availability \(ha: true\) is not simulated by the fake provider/);
    // Its member addresses were given (and admitted) before the driver said no, and go back with the delete.
    const members = (await row(created.id)).memberAddresses;
    expect(members).toHaveLength(3);
    expect(new Set(members).size).toBe(3);
    await lives().delete(['postgres'], String(created.id), w.principal);
    await w.drained();
    for (let n = 0; n < 3; n++) expect(await network().observe(`${databaseServerKey(created)}-member-${n}`)).toBeNull();
  });

  it('a start cut short halfway is retried and the server comes up', async () => {
    w.control.failNext('database.ensureRunning', 'halfway');
    const { row: created } = await lives().create('postgres', postgresRequest('retried'), w.principal);
    await w.drained();
    expect(await row(created.id)).toMatchObject({ status: 'ready', statusReason: null });
    expect(await driver().observe(databaseServerKey(created))).toEqual({ running: true, ready: true });
  });

  it('a delete that meets a create as it starts the server waits for that step: no server outlives the row, no address is given back under one', async () => {
    // The server is still starting when the step ends: the job looks at it again later, by which time the row is gone.
    const startMs = w.control.databaseStartMs;
    w.control.databaseStartMs = 60_000;
    const d = driver();
    const start = d.ensureRunning.bind(d);
    const spy = jest.spyOn(d, 'ensureRunning').mockImplementationOnce(async (spec) => {
      // The create has read its row and taken its address; the delete is asked for before the server starts.
      const id = Number(spec.key.split('-')[1]);
      await lives().delete(['postgres'], String(id), w.principal);
      await deleteWaitsOrDone(id);
      return start(spec);
    });
    try {
      const { row: created } = await lives().create('postgres', postgresRequest('overlapped'), w.principal);
      const id = created.id;
      await w.drained();
      expect(spy).toHaveBeenCalled();
      const key = databaseServerKey(created);
      expect(await w.db.getRepository(ManagedDatabase).existsBy({ id })).toBe(false);
      expect(await network().observe(key)).toBeNull();
      expect(await driver().observe(key)).toBeNull();
    } finally {
      spy.mockRestore();
      w.control.databaseStartMs = startMs;
    }
  });

  describe('the reconciler', () => {
    const sweep = () => w.get(DatabasesReconciler).sweep();

    /** The server stops and stays (its data kept): a delete cut short after the stop leaves exactly that. */
    async function stop(key: string): Promise<void> {
      w.control.failNext('database.delete', 'halfway');
      await expect(driver().delete(key)).rejects.toThrow(/injected failure/);
      expect(await driver().observe(key)).toEqual({ running: false, ready: false });
    }

    it('starts a ready server that stopped again, and it stays ready', async () => {
      const db = await ready('restarted');
      const key = databaseServerKey(db);
      await stop(key);

      await sweep();
      expect(await driver().observe(key)).toEqual({ running: true, ready: true });
      expect(await row(db.id)).toMatchObject({ status: 'ready', statusReason: null, floatingIp: db.address });
    });

    it('a restart that races a delete leaves no server behind', async () => {
      const db = await ready('raced');
      const key = databaseServerKey(db);
      await stop(key);
      // The sweep has read the row ready and found it stopped; the delete, its job and all, happens as it restarts it.
      const d = driver();
      const restart = d.ensureRunning.bind(d);
      const spy = jest.spyOn(d, 'ensureRunning').mockImplementationOnce(async (spec) => {
        await lives().delete(['postgres'], String(db.id), w.principal);
        await deleteWaitsOrDone(db.id);
        return restart(spec);
      });
      try {
        await sweep();
        await w.drained();
        expect(spy).toHaveBeenCalled();
      } finally {
        spy.mockRestore();
      }
      expect(await w.db.getRepository(ManagedDatabase).existsBy({ id: db.id })).toBe(false);
      expect(await driver().observe(key)).toBeNull();
    });

    it('a stopped server that cannot be started again is an error with the reason', async () => {
      const db = await ready('unrecoverable');
      await stop(databaseServerKey(db));
      w.control.failNext('database.ensureRunning', 'before', new DriverError('invalid', 'its data directory is gone'));

      await sweep();
      expect(await row(db.id)).toMatchObject({ status: 'error', statusReason: 'the server stopped and could not be restarted: its data directory is gone' });
    });

    it('fails provisioning past its deadline; the late job then leaves it so', async () => {
      const processor = w.get(DatabasesProcessor);
      await processor.worker.pause();
      try {
        const { row: created } = await lives().create('postgres', postgresRequest('late'), w.principal);
        await w.db.getRepository(ManagedDatabase).update({ id: created.id }, { provisionDeadline: new Date(Date.now() - 1_000) });

        await sweep();
        expect(await row(created.id)).toMatchObject({ status: 'error', statusReason: 'provisioning did not finish before its deadline' });
        processor.worker.resume();
        await w.drained();
        expect(await row(created.id)).toMatchObject({ status: 'error', floatingIp: null });
        expect(await driver().observe(databaseServerKey(created))).toBeNull();
      } finally {
        processor.worker.resume();
      }
    });
  });
});
