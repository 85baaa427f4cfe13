import { BadRequestException } from '@nestjs/common';
import { canonicalJson, fingerprintOf, parseKey, PASSWORD_ISSUED_ONCE, withoutPasswords } from './idempotency.interceptor';

describe('Idempotency-Key helpers', () => {
  it('takes a bare or quoted key of 1 to 255 visible characters, and refuses the rest', () => {
    expect(parseKey('5f0c2a9e-1b7d-4c8e-9a6b-3d2f1e0c9b8a')).toBe('5f0c2a9e-1b7d-4c8e-9a6b-3d2f1e0c9b8a');
    expect(parseKey('"abc"')).toBe('abc');
    expect(parseKey('k'.repeat(255))).toHaveLength(255);
    for (const bad of ['', '""', 'k'.repeat(256), 'a b', 'a"b', 'a\\b', 'é', ['a', 'b']]) expect(() => parseKey(bad)).toThrow(BadRequestException);
  });

  it('fingerprints a body whatever the order of its fields, and tells bodies and routes apart', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
    expect(fingerprintOf('POST', '/v1/cache', { a: 1, b: 2 })).toBe(fingerprintOf('POST', '/v1/cache', { b: 2, a: 1 }));
    expect(fingerprintOf('POST', '/v1/cache', { a: 1 })).not.toBe(fingerprintOf('POST', '/v1/cache', { a: 2 }));
    expect(fingerprintOf('POST', '/v1/cache', { a: 1 })).not.toBe(fingerprintOf('POST', '/v1/databases', { a: 1 }));
  });

  it('replaces every password field of the kept answer, and nothing else', () => {
    const answer = { id: 7, password: 'p', nested: { db_password: 'q', items: [{ password: 'r' }] }, name: 'password' };
    expect(withoutPasswords(answer)).toEqual({
      id: 7,
      password: PASSWORD_ISSUED_ONCE,
      nested: { db_password: PASSWORD_ISSUED_ONCE, items: [{ password: PASSWORD_ISSUED_ONCE }] },
      name: 'password',
    });
  });
});
