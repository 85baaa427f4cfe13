import { ApiKeyHasher } from './api-key';

describe('ApiKeyHasher', () => {
  const hasher = new ApiKeyHasher(Buffer.from('pepper'));

  it('issues a key that parses back and verifies against its stored hash only', () => {
    const issued = hasher.issue();
    const parsed = ApiKeyHasher.parse(issued.key);
    expect(parsed?.keyId).toBe(issued.keyId);
    expect(issued.secretHash).not.toContain(parsed!.secret);
    expect(hasher.verify(parsed!.secret, issued.secretHash)).toBe(true);
    expect(hasher.verify(parsed!.secret + 'x', issued.secretHash)).toBe(false);
  });

  it('depends on the pepper', () => {
    const issued = hasher.issue();
    const other = new ApiKeyHasher(Buffer.from('other'));
    expect(other.verify(ApiKeyHasher.parse(issued.key)!.secret, issued.secretHash)).toBe(false);
  });

  it.each(['', 'stk_', 'stk_short_secret', 'abc_0123456789abcdef_' + 'a'.repeat(43), 'stk_0123456789abcdef_' + 'a'.repeat(42)])('rejects malformed key %j', (key) =>
    expect(ApiKeyHasher.parse(key)).toBeNull(),
  );
});
