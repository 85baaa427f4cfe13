import { AddressLease } from '@stratus/core';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { leaseAddress, leasedAddress, releaseAddress } from './address-pool';

// Runs against a throwaway schema on the local PostgreSQL: the SQL is the whole logic.
const url = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const schema = `lease_spec_${process.pid}`;

describe('the local address pool', () => {
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

  const lease = (pool: string, id: string) => leaseAddress(ds, pool, 'test', id);

  it('hands out the lowest free address, reuses released ones, and stops when the pool is full', async () => {
    const pool = '127.99.0.0/30'; // two usable host numbers
    expect(await lease(pool, 'a')).toBe('127.99.0.1');
    expect(await lease(pool, 'b')).toBe('127.99.0.2');
    await expect(lease(pool, 'c')).rejects.toThrow('no free address left in 127.99.0.0/30');
    await releaseAddress(ds, 'a');
    expect(await lease(pool, 'c')).toBe('127.99.0.1');
  });

  it('gives a resource that holds an address that same address again', async () => {
    const pool = '127.99.1.0/30';
    expect(await lease(pool, 'again')).toBe('127.99.1.1');
    expect(await lease(pool, 'again')).toBe('127.99.1.1');
    expect(await leasedAddress(ds, 'again')).toBe('127.99.1.1');
    // Even with the pool full: it needs no new address.
    await lease(pool, 'other');
    expect(await lease(pool, 'again')).toBe('127.99.1.1');
    await releaseAddress(ds, 'again');
    await releaseAddress(ds, 'again');
    expect(await leasedAddress(ds, 'again')).toBeNull();
  });

  it('fills gaps and keeps pools apart', async () => {
    const pool = '127.98.0.0/16';
    for (const id of ['x1', 'x2', 'x3', 'x4']) await lease(pool, id);
    await releaseAddress(ds, 'x2');
    expect(await lease(pool, 'x5')).toBe('127.98.0.2');
    expect(await lease(pool, 'x6')).toBe('127.98.0.5');
    expect(await lease('127.97.0.0/16', 'y1')).toBe('127.97.0.1');
  });

  it('never hands one address to two concurrent ensures, and gives one resource one address when it asks twice at once', async () => {
    const pool = '127.96.0.0/16';
    const got = await Promise.all(Array.from({ length: 30 }, (_, i) => lease(pool, `c${i % 20}`)));
    expect(new Set(got).size).toBe(20);
    for (let i = 20; i < 30; i++) expect(got[i]).toBe(got[i - 20]);
    expect([...new Set(got)].sort()).toEqual(Array.from({ length: 20 }, (_, i) => `127.96.0.${i + 1}`).sort());
  });

  it('leases inside a transaction too, seeing what others committed meanwhile', async () => {
    const pool = '127.93.0.0/16';
    const got = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? lease(pool, `t${i}`) : ds.transaction((m) => leaseAddress(m, pool, 'test', `s${i}`)))));
    expect(new Set(got).size).toBe(20);
  });
});
