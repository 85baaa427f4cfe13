import { EmbeddedTokenSigner, secretsDir } from '@stratus/core';
import { createTenant, signTestToken, Tenant, TestStack, testConfig, testDataSource, waitFor } from '@stratus/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import * as jwt from 'jsonwebtoken';
import { DataSource } from 'typeorm';

describe('authentication', () => {
  let stack: TestStack;
  let db: DataSource;
  let tenant: Tenant;

  beforeAll(async () => {
    stack = await TestStack.start({}, ['api']);
    db = await testDataSource();
    tenant = await createTenant(db);
  });

  afterAll(async () => {
    await stack?.stop();
    await db?.destroy();
  });

  describe('/v1 with x-api-key', () => {
    it('accepts a live key', async () => {
      const res = await stack.http.get('/v1/flavors', { 'x-api-key': tenant.apiKey });
      expect(res.status).toBe(200);
    });

    it.each([
      ['no header', {}, 'missing x-api-key header'],
      ['an empty key', { 'x-api-key': '' }, 'missing x-api-key header'],
      ['garbage', { 'x-api-key': 'hello' }, 'invalid API key'],
      ['a bearer token instead', { authorization: 'Bearer x' }, 'missing x-api-key header'],
    ])('401 for %s', async (_label, headers: Record<string, string>, message) => {
      const res = await stack.http.get('/v1/instances', headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: { code: 'unauthorized', message } });
    });

    it('401 for a key whose secret is wrong', async () => {
      const forged = tenant.apiKey.slice(0, -4) + (tenant.apiKey.endsWith('AAAA') ? 'BBBB' : 'AAAA');
      const res = await stack.http.get('/v1/instances', { 'x-api-key': forged });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    });

    it('401 for a revoked key', async () => {
      const t = await createTenant(db);
      const keyId = t.apiKey.split('_')[1];
      await db.query('UPDATE api_keys SET revoked_at = now() WHERE key_id = $1', [keyId]);
      const res = await stack.http.get('/v1/instances', { 'x-api-key': t.apiKey });
      expect(res.status).toBe(401);
    });

    it('stores only an HMAC of the secret', async () => {
      const [, keyId, secret] = /^stk_([^_]+)_(.+)$/.exec(tenant.apiKey)!;
      const rows = await db.query('SELECT * FROM api_keys WHERE key_id = $1', [keyId]);
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(secret);
      expect(rows[0].secret_hash).toMatch(/^[0-9a-f]{64}$/);
    });
  });

  describe('/api/cloud with a Bearer token', () => {
    const whoami = (token?: string) => stack.http.get('/api/cloud/auth/whoami', token === undefined ? {} : { authorization: `Bearer ${token}` });

    it('accepts a token of the embedded identity provider, verified through its JWKS', async () => {
      const res = await whoami(tenant.token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ project_id: tenant.projectId, user_id: tenant.userId });
      const jwks = await stack.http.get('/.well-known/jwks.json');
      expect(jwks.body.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
      expect(jwks.body.keys[0]).not.toHaveProperty('d');
    });

    const expectUnauthorized = async (token: string | undefined, reason: RegExp) => {
      const res = await whoami(token);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
      expect(res.body.error.message).toMatch(reason);
    };

    it('401 without a token', () => expectUnauthorized(undefined, /No auth token|missing/i));
    it('401 for a malformed token', () => expectUnauthorized('not.a.jwt', /invalid token/));
    it('401 for an expired token', () => expectUnauthorized(signTestToken({ project_id: tenant.projectId, sub: 'u' }, { expiresIn: -60 }), /expired/));
    it('401 for the wrong issuer', () => expectUnauthorized(signTestToken({ project_id: tenant.projectId, sub: 'u' }, { issuer: 'https://evil.example' }), /issuer/));
    it('401 for the wrong audience', () => expectUnauthorized(signTestToken({ project_id: tenant.projectId, sub: 'u' }, { audience: 'someone-else' }), /audience/));

    it('401 for a token without an expiry, though its signature, issuer and audience are good', async () => {
      const { DATA_DIR, AUTH_ISSUER, AUTH_AUDIENCE } = testConfig();
      const claims = { project_id: tenant.projectId, sub: 'u' };
      const sign = (opts: jwt.SignOptions) =>
        jwt.sign(claims, readFileSync(join(secretsDir(DATA_DIR), 'jwt-signing-key.pem'), 'utf8'), {
          algorithm: 'RS256',
          keyid: EmbeddedTokenSigner.fromDataDir(DATA_DIR).kid,
          issuer: AUTH_ISSUER,
          audience: AUTH_AUDIENCE,
          ...opts,
        });
      // The same key and claims with an expiry pass: only the missing exp is refused.
      expect((await whoami(sign({ expiresIn: 60 }))).status).toBe(200);
      await expectUnauthorized(sign({}), /no expiry \(exp\)/);
    });

    it('401 for HS256 signed with the public key (algorithm confusion)', async () => {
      const jwks = (await stack.http.get('/.well-known/jwks.json')).body;
      const { createPublicKey } = await import('node:crypto');
      const publicPem = createPublicKey({ key: jwks.keys[0], format: 'jwk' }).export({ type: 'spki', format: 'pem' });
      const token = jwt.sign({ project_id: tenant.projectId, sub: 'u' }, publicPem, {
        algorithm: 'HS256',
        issuer: 'stratus-local',
        audience: 'stratus',
        keyid: jwks.keys[0].kid,
      });
      await expectUnauthorized(token, /invalid/);
    });

    it('401 for alg none', async () => {
      const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
      const body = Buffer.from(JSON.stringify({ project_id: tenant.projectId, sub: 'u', iss: 'stratus-local', aud: 'stratus', exp: 9_999_999_999 })).toString('base64url');
      await expectUnauthorized(`${header}.${body}.`, /invalid/);
    });

    it('401 for a token signed by a key the JWKS does not have', async () => {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const token = jwt.sign({ project_id: tenant.projectId, sub: 'u' }, privateKey.export({ type: 'pkcs8', format: 'pem' }), {
        algorithm: 'RS256',
        issuer: 'stratus-local',
        audience: 'stratus',
        expiresIn: 60,
      });
      await expectUnauthorized(token, /invalid/);
    });

    it('401 for an unsigned token naming a key the JWKS does not have, and the api answers on', async () => {
      // No key found and no signature: the verifier was handed no key and threw outside any request, ending the process.
      const header = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: 'no-such-key' })).toString('base64url');
      const body = Buffer.from(JSON.stringify({ project_id: tenant.projectId, sub: 'u', iss: 'stratus-local', aud: 'stratus', exp: 9_999_999_999 })).toString('base64url');
      await expectUnauthorized(`${header}.${body}.`, /invalid token: no key of the JWKS has its kid/);
      await expectUnauthorized(`${header}.${body}.c2lnbmF0dXJl`, /invalid token: no key of the JWKS has its kid/);
      expect((await whoami(tenant.token)).status).toBe(200);
    });

    it('401 for a token whose signature was tampered with', async () => {
      const [h, p] = tenant.token.split('.');
      const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
      const forged = Buffer.from(JSON.stringify({ ...payload, project_id: 'someone-else' })).toString('base64url');
      await expectUnauthorized(`${h}.${forged}.${tenant.token.split('.')[2]}`, /invalid/);
    });

    it('403 for a valid token that names no project', async () => {
      const res = await whoami(signTestToken({ sub: 'u' }));
      expect(res.status).toBe(403);
      expect(res.body.error).toEqual({ code: 'forbidden', message: expect.stringContaining('project_id') });
    });

    it('an API key is not a Bearer token', async () => {
      await expectUnauthorized(tenant.apiKey, /invalid/);
    });
  });

  it('answers unknown routes with the envelope and a request id', async () => {
    const res = await stack.http.get('/v2/anything', { 'x-request-id': 'trace-me-1' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect(res.headers.get('x-request-id')).toBe('trace-me-1');
  });

  it('logs each answered request once, under its request id, without its key', async () => {
    await stack.http.get('/v1/flavors?limit=1', { 'x-request-id': 'trace-me-2', 'x-api-key': tenant.apiKey });
    // Lines are written asynchronously, in batches.
    const line = await waitFor('the access line', () =>
      readFileSync(join(stack.logsDir, 'api.log'), 'utf8')
        .split('\n')
        .find((l) => l.includes('"request_id":"trace-me-2"')),
    );
    expect(JSON.parse(line)).toMatchObject({ service: 'api', msg: 'request completed', method: 'GET', url: '/v1/flavors?limit=1', status: 200 });
    expect(line).not.toContain(tenant.apiKey.split('_').pop());
  });
});
