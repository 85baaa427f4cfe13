import { Conflict, Forbidden, Invalid, NotFound, Unavailable } from '@stratus/core';
import { RedisUnavailableError } from '@stratus/queue';
import { toEnvelope, unavailableDependency } from './all-exceptions.filter';

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

describe('toEnvelope of domain errors', () => {
  it.each([
    [new Invalid('image_id', 'image "x" does not exist'), 400, 'bad_request', 'image_id: image "x" does not exist'],
    [
      new Invalid([
        { field: 'metadata.a', message: 'is managed' },
        { field: 'metadata.b', message: 'is managed' },
      ]),
      400,
      'bad_request',
      'metadata.a: is managed; metadata.b: is managed',
    ],
    [new Forbidden('instance i belongs to another project'), 403, 'forbidden', 'instance i belongs to another project'],
    [new NotFound('volume v not found'), 404, 'not_found', 'volume v not found'],
    [new Conflict('port 1 is already used by another route'), 409, 'conflict', 'port 1 is already used by another route'],
    [new Unavailable('the edge cannot serve a route'), 503, 'service_unavailable', 'the edge cannot serve a route'],
  ])('%s', (err, status, code, message) => {
    expect(toEnvelope(err)).toEqual([status, { error: { code, message } }]);
  });
});
