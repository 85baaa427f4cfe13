import { DataSource } from 'typeorm';
import { Client } from 'pg';
import { insertTogether } from '../database/hot-queries';
import { AddressLease } from './address-lease.entity';
import { leaseAddress, lowestFreeAddress, releaseAddress, withFreeAddress } from './address-pool';

// Runs against a throwaway schema on the local PostgreSQL: the SQL is the whole logic.
const url = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const schema = `lease_spec_${process.pid}`;

describe('address leases', () => {
  let ds: DataSource;

  beforeAll(async () => {
    const admin = new Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    ds = await new DataSource({ type: 'postgres', url, schema, entities: [AddressLease], extra: { options: `-c search_path=${schema}` } }).initialize();
    // The table as the entity (and so the migrations) define it, constraint names included.
    await ds.synchronize();
  });

  afterAll(async () => {
    await ds.query(`DROP SCHEMA ${schema} CASCADE`);
    await ds.destroy();
  });

  const lease = (pool: string, id: string) => ds.transaction((m) => leaseAddress(m, pool, 'test', id));

  it('hands out the lowest free address, reuses released ones, and stops when the pool is full', async () => {
    const pool = '127.99.0.0/30'; // two usable host numbers
    expect(await lease(pool, 'a')).toBe('127.99.0.1');
    expect(await lease(pool, 'b')).toBe('127.99.0.2');
    await expect(lease(pool, 'c')).rejects.toThrow('no free address left in 127.99.0.0/30');
    await ds.transaction((m) => releaseAddress(m, 'a'));
    expect(await lease(pool, 'c')).toBe('127.99.0.1');
  });

  it('fills gaps and keeps pools apart', async () => {
    const pool = '127.98.0.0/16';
    for (const id of ['x1', 'x2', 'x3', 'x4']) await lease(pool, id);
    await ds.transaction((m) => releaseAddress(m, 'x2'));
    expect(await lease(pool, 'x5')).toBe('127.98.0.2');
    expect(await lease(pool, 'x6')).toBe('127.98.0.5');
    expect(await lease('127.97.0.0/16', 'y1')).toBe('127.97.0.1');
  });

  it('never hands one address to two concurrent creates', async () => {
    const pool = '127.96.0.0/16';
    const got = await Promise.all(Array.from({ length: 20 }, (_, i) => lease(pool, `c${i}`)));
    expect(new Set(got).size).toBe(20);
  });

  const insertLease = (address: string, id: string) =>
    insertTogether(ds, [{ entity: AddressLease, values: { address, resourceKind: 'test', resourceId: id } }]).then(() => address);
  const claim = (pool: string, id: string) => withFreeAddress(ds, pool, (address) => insertLease(address, id));

  it('reads the lowest free address outside a transaction; a full pool is an error', async () => {
    const pool = '127.95.0.0/30';
    expect(await lowestFreeAddress(ds, pool)).toBe('127.95.0.1');
    expect(await claim(pool, 'r1')).toBe('127.95.0.1');
    expect(await claim(pool, 'r2')).toBe('127.95.0.2');
    await expect(lowestFreeAddress(ds, pool)).rejects.toThrow('no free address left in 127.95.0.0/30');
  });

  it('retries only when the address was taken, not on other failures', async () => {
    await claim('127.94.0.0/16', 'taken');
    let tries = 0;
    // The resource id is taken too: a unique violation that a fresh address does not cure.
    const sameId = withFreeAddress(ds, '127.94.0.0/16', (address) => (tries++, insertLease(address, 'taken')));
    await expect(sameId).rejects.toThrow(/duplicate key/);
    expect(tries).toBe(1);
    // A stale read (an address taken meanwhile) is retried with the next one.
    let first = true;
    const stale = await withFreeAddress(ds, '127.94.0.0/16', (address) => {
      const use = first ? '127.94.0.1' : address;
      first = false;
      return insertLease(use, 'fresh');
    });
    expect(stale).toBe('127.94.0.2');
  });

  it('never hands one address to two creates, whether they lease in a transaction or claim outside one', async () => {
    const pool = '127.93.0.0/16';
    const got = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? lease(pool, `t${i}`) : claim(pool, `s${i}`))));
    expect(new Set(got).size).toBe(30);
    expect([...got].sort()).toEqual(Array.from({ length: 30 }, (_, i) => `127.93.0.${i + 1}`).sort());
  });
});
