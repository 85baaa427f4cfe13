import { RedisUnavailableError } from '@stratus/queue';
import { unavailableDependency } from './all-exceptions.filter';

const DB_PORT = 5433;

function netError(code: string, port: number): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:${port}`), { code, syscall: 'connect', address: '127.0.0.1', port });
}

describe('unavailableDependency', () => {
  it.each([
    ['a refused connect to the database port', netError('ECONNREFUSED', DB_PORT)],
    ['a connection pg saw end', new Error('Connection terminated unexpectedly')],
    ['a pool that had no connection in time', new Error('timeout exceeded when trying to connect')],
    ['an admin shutdown (57P01)', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01', severity: 'FATAL' })],
    ['a query TypeORM wrapped', Object.assign(new Error('query failed'), { driverError: Object.assign(new Error('x'), { code: '57P03', severity: 'FATAL' }) })],
  ])('PostgreSQL: %s', (_label, err) => {
    expect(unavailableDependency(err, DB_PORT)).toBe('PostgreSQL');
  });

  it('Redis: our own deadline error', () => {
    expect(unavailableDependency(new RedisUnavailableError('enqueue'), DB_PORT)).toBe('Redis');
  });

  it.each([
    ['a refused connect elsewhere', netError('ECONNREFUSED', 443)],
    ['a constraint violation', Object.assign(new Error('duplicate key'), { code: '23505', severity: 'ERROR' })],
    ['a bug', new TypeError('x is undefined')],
    ['a string', 'boom'],
  ])('none: %s', (_label, err) => {
    expect(unavailableDependency(err, DB_PORT)).toBeNull();
  });
});
