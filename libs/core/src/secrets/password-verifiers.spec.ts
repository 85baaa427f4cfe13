import { createHash, createHmac } from 'node:crypto';
import { generateDatabasePassword, mysqlNativeVerifier, scramSha256Verifier, sha256Hex } from './password-verifiers';

describe('database password verifiers', () => {
  it('generates distinct 32-character alphanumeric passwords', () => {
    const seen = new Set(Array.from({ length: 200 }, () => generateDatabasePassword()));
    expect(seen.size).toBe(200);
    for (const p of seen) expect(p).toMatch(/^[A-Za-z0-9]{32}$/);
  });

  // RFC 7677's worked exchange (user "user", password "pencil"): a verifier is right when the
  // RFC's client proof checks out against its StoredKey and its ServerKey signs what the RFC shows.
  it('computes a SCRAM-SHA-256 verifier that checks the RFC 7677 exchange', async () => {
    const verifier = await scramSha256Verifier('pencil', Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64'));
    const [, salt, storedKey, serverKey] = /^SCRAM-SHA-256\$4096:([^$]+)\$([^:]+):(.+)$/.exec(verifier)!;
    expect(salt).toBe('W22ZaJ0SNY7soEsUEjb6gQ==');
    const authMessage =
      'n=user,r=rOprNGfwEbeRWgbNEkqO,' +
      'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,' +
      'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0';
    const proof = Buffer.from('dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=', 'base64');
    const clientSignature = createHmac('sha256', Buffer.from(storedKey, 'base64')).update(authMessage).digest();
    const clientKey = Buffer.from(proof.map((b, i) => b ^ clientSignature[i]));
    expect(createHash('sha256').update(clientKey).digest('base64')).toBe(storedKey);
    expect(createHmac('sha256', Buffer.from(serverKey, 'base64')).update(authMessage).digest('base64')).toBe('6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=');
    expect(verifier).not.toContain('pencil');
  });

  it('uses a fresh salt each time', async () => {
    expect(await scramSha256Verifier('same')).not.toBe(await scramSha256Verifier('same'));
  });

  it('hashes for Redis ACLs and ClickHouse as SHA-256 hex', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  // The value MariaDB's own PASSWORD('secretpw123') returned on 10.11.
  it('computes the mysql_native_password verifier MariaDB and MySQL compute', () => {
    expect(mysqlNativeVerifier('secretpw123')).toBe('*503141D68F66BF089C04BC3449AD46E13C2A36AF');
  });
});
