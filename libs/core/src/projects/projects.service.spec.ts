import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app.config';
import { ApiKeyHasher } from '../secrets/api-key';
import { API_KEY_CACHE_MAX, API_KEY_CACHE_TTL_MS, ProjectsService } from './projects.service';

describe('ProjectsService.verifyApiKey', () => {
  let dataDir: string;
  let rows: Map<string, Record<string, unknown>>;
  let lookups: number;
  let projects: ProjectsService;
  let now: number;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'stratus-keys-'));
    rows = new Map();
    lookups = 0;
    now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    const repository = {
      insert: async (row: Record<string, unknown>) => void rows.set(row.keyId as string, { ...row, revokedAt: null }),
      findOneBy: async ({ keyId }: { keyId: string }) => {
        lookups++;
        return rows.get(keyId) ?? null;
      },
      update: async ({ keyId }: { keyId: string }, fields: Record<string, unknown>) => {
        const row = rows.get(keyId);
        if (row) Object.assign(row, fields);
        return { affected: row ? 1 : 0 };
      },
    };
    const dataSource = { getRepository: () => repository } as unknown as DataSource;
    projects = new ProjectsService(dataSource, Object.assign(new AppConfig(), { DATA_DIR: dataDir }));
  });

  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const issue = (user = 'u') => projects.issueApiKey('p', user);
  const revokeElsewhere = (keyId: string) => (rows.get(keyId)!.revokedAt = new Date());

  it('reads the key row once per TTL for a key that verified', async () => {
    const { key } = await issue();
    for (let i = 0; i < 5; i++) expect(await projects.verifyApiKey(key)).toEqual({ projectId: 'p', userId: 'u' });
    expect(lookups).toBe(1);
    now += API_KEY_CACHE_TTL_MS;
    await projects.verifyApiKey(key);
    expect(lookups).toBe(2);
  });

  it('checks the secret on every request, cached or not', async () => {
    const { key } = await issue();
    await projects.verifyApiKey(key);
    const forged = key.slice(0, -4) + (key.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect(await projects.verifyApiKey(forged)).toBeNull();
    expect(await projects.verifyApiKey(key)).not.toBeNull();
  });

  it('refuses a key revoked elsewhere once the TTL has passed, and at once when revoked here', async () => {
    const a = await issue('a');
    const b = await issue('b');
    await projects.verifyApiKey(a.key);
    await projects.verifyApiKey(b.key);
    revokeElsewhere(a.keyId);
    now += API_KEY_CACHE_TTL_MS;
    expect(await projects.verifyApiKey(a.key)).toBeNull();
    await projects.revokeApiKey(b.keyId);
    expect(await projects.verifyApiKey(b.key)).toBeNull();
  });

  it('caches neither unknown nor revoked keys', async () => {
    const { key, keyId } = await issue();
    revokeElsewhere(keyId);
    expect(await projects.verifyApiKey(key)).toBeNull();
    expect(await projects.verifyApiKey(key)).toBeNull();
    const unknown = `stk_${'0'.repeat(16)}_${'a'.repeat(43)}`;
    expect(ApiKeyHasher.parse(unknown)).not.toBeNull();
    expect(await projects.verifyApiKey(unknown)).toBeNull();
    expect(lookups).toBe(3);
  });

  it('holds at most API_KEY_CACHE_MAX keys, dropping the oldest', async () => {
    const first = await issue('first');
    await projects.verifyApiKey(first.key);
    for (let i = 0; i < API_KEY_CACHE_MAX; i++) {
      const { key } = await issue(`u${i}`);
      await projects.verifyApiKey(key);
    }
    expect((projects as unknown as { verified: Map<string, unknown> }).verified.size).toBe(API_KEY_CACHE_MAX);
    lookups = 0;
    await projects.verifyApiKey(first.key);
    expect(lookups).toBe(1);
  });
});
