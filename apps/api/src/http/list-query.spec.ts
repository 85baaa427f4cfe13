import { decodePageCursor, encodePageCursor, pageRequest } from './list-query';

describe('page cursors', () => {
  it('round-trips a key', () => {
    const key = { createdAt: '2026-11-26 03:00:00.123456+00', id: '5d3c1b8e-0000-4000-8000-000000000001' };
    expect(decodePageCursor(encodePageCursor(key))).toEqual(key);
  });

  it.each(['', 'nope', Buffer.from('[]').toString('base64url'), Buffer.from('{"t":1,"i":"x"}').toString('base64url')])('refuses %j with a 400', (cursor) => {
    expect(() => decodePageCursor(cursor)).toThrow('cursor: not a cursor this API issued');
  });

  it('asks for 100 without a limit', () => expect(pageRequest({})).toEqual({ limit: 100, after: null, name: undefined, status: undefined }));
});
