import { engineVerifier } from '@stratus/core';
import { execFileSync, spawnSync } from 'node:child_process';
import { parse } from 'yaml';
import { DatabaseServerSpec } from '../databases.driver';
import { DriverError } from '../driver-error';
import { readyLine, renderDatabaseCloudInit, verifierFingerprint } from './openstack-database.cloud-init';

const PASSWORD = 'correct-horse-battery-staple';

async function spec(overrides: Partial<DatabaseServerSpec> = {}): Promise<DatabaseServerSpec> {
  const engine = overrides.engine ?? 'postgres';
  return {
    key: `${engine}-7`,
    engine,
    version: engine === 'postgres' ? '16' : engine === 'redis' ? '7' : null,
    address: '10.0.0.23',
    port: engine === 'postgres' ? 5432 : engine === 'redis' ? 6379 : 8123,
    dbName: 'orders',
    dbUser: 'app',
    passwordVerifier: await engineVerifier(engine, PASSWORD),
    superuser: false,
    extensions: [],
    ha: false,
    memberAddresses: [],
    ...overrides,
  };
}

interface CloudConfig {
  packages: string[];
  write_files: Array<{ path: string; permissions: string; content: string }>;
  runcmd: string[][];
}

/** The cloud-config as cloud-init reads it (YAML), and each file it writes by path. */
function read(userData: string): { config: CloudConfig; file: (path: string) => string } {
  expect(userData.startsWith('#cloud-config\n')).toBe(true);
  const config = parse(userData) as CloudConfig;
  return {
    config,
    file: (path) => {
      const found = config.write_files.find((f) => f.path === path);
      if (!found) throw new Error(`no ${path} in the cloud-config`);
      return found.content;
    },
  };
}

function refusal(s: DatabaseServerSpec): DriverError {
  try {
    renderDatabaseCloudInit(s);
  } catch (err) {
    return err as DriverError;
  }
  throw new Error('rendered a spec it should refuse');
}

describe('the cloud-init of a database server on OpenStack', () => {
  it('PostgreSQL: PGDG packages of the version with the extensions, its address, the user from the SCRAM verifier, never the password', async () => {
    const s = await spec({ extensions: ['pgvector', 'pg_stat_statements', 'uuid-ossp'], superuser: true });
    const userData = renderDatabaseCloudInit(s);
    expect(userData).not.toContain(PASSWORD);
    const { config, file } = read(userData);
    expect(config.runcmd).toEqual([['/usr/local/sbin/stratus-database-setup']]);
    const setup = file('/usr/local/sbin/stratus-database-setup');
    expect(setup).toContain('http://apt.postgresql.org/pub/repos/apt bookworm-pgdg main');
    expect(setup).toContain('apt-get install -y postgresql-16 postgresql-16-pgvector\n');
    expect(setup).toContain("shared_preload_libraries = 'pg_stat_statements'");
    expect(setup).toContain('host all all 0.0.0.0/0 scram-sha-256');
    const env = file('/etc/stratus/database.env');
    expect(env).toContain("ADDRESS='10.0.0.23'\nPORT='5432'\n");
    expect(env).toContain("DB_NAME='orders'\nDB_USER='app'\nSUPERUSER='yes'\nEXTENSIONS='vector pg_stat_statements uuid-ossp'\n");
    expect(file('/etc/stratus/verifier')).toBe(`${s.passwordVerifier}\n`);
    expect(file('/usr/local/sbin/stratus-credentials')).toContain(`ALTER ROLE :"user" WITH LOGIN :role PASSWORD :'verifier';`);
    // Only root reads what holds the verifier.
    for (const path of ['/etc/stratus/database.env', '/etc/stratus/verifier', '/usr/local/sbin/stratus-credentials']) {
      expect(config.write_files.find((f) => f.path === path)?.permissions).toMatch(/^0[67]00$/);
    }
  });

  it('Redis: an ACL rule with the SHA-256 of the password (requirepass would take it as the password)', async () => {
    // A cache has no database or user name of its own, as the API makes it.
    const s = await spec({ engine: 'redis', dbName: null, dbUser: null });
    const userData = renderDatabaseCloudInit(s);
    expect(userData).not.toContain(PASSWORD);
    const { file } = read(userData);
    expect(file('/usr/local/sbin/stratus-database-setup')).toContain('apt-get install -y redis-server');
    expect(file('/usr/local/sbin/stratus-credentials')).toContain('echo "user default on #$V ~* &* +@all"');
    expect(file('/etc/stratus/verifier')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(userData).not.toContain('requirepass');
  });

  it('ClickHouse: its own repository, the app user with password_sha256_hex and no default user', async () => {
    const s = await spec({ engine: 'clickhouse' });
    const userData = renderDatabaseCloudInit(s);
    expect(userData).not.toContain(PASSWORD);
    const { file } = read(userData);
    expect(file('/usr/local/sbin/stratus-database-setup')).toContain('https://packages.clickhouse.com/deb stable main');
    const credentials = file('/usr/local/sbin/stratus-credentials');
    expect(credentials).toContain('<password_sha256_hex>$V</password_sha256_hex>');
    expect(credentials).toContain('<default remove="remove"/>');
  });

  it('every script it writes is valid sh', async () => {
    for (const engine of ['postgres', 'redis', 'clickhouse'] as const) {
      const { file } = read(renderDatabaseCloudInit(await spec({ engine, extensions: engine === 'postgres' ? ['postgis'] : [] })));
      for (const path of ['/usr/local/sbin/stratus-database-setup', '/usr/local/sbin/stratus-credentials', '/etc/stratus/database.env']) {
        const checked = spawnSync('sh', ['-n'], { input: file(path) });
        expect({ path, engine, stderr: checked.stderr.toString() }).toEqual({ path, engine, stderr: '' });
      }
    }
  });

  it("the server's check of a verifier from the metadata (grep -E) takes the engine's verifier and nothing with a quote in it", async () => {
    for (const engine of ['postgres', 'redis', 'clickhouse'] as const) {
      const s = await spec({ engine });
      const credentials = read(renderDatabaseCloudInit(s)).file('/usr/local/sbin/stratus-credentials');
      const pattern = /grep -Eqx '([^']+)'/.exec(credentials)![1];
      const matches = (input: string) => spawnSync('grep', ['-Eqx', pattern], { input }).status === 0;
      expect(matches(s.passwordVerifier)).toBe(true);
      expect(matches(`${s.passwordVerifier}'; DROP ROLE app; --`)).toBe(false);
      expect(matches(PASSWORD)).toBe(false);
    }
  });

  it('the ready line carries the fingerprint the server computes with sha256sum', async () => {
    const s = await spec();
    const fromShell = execFileSync('sh', ['-c', 'printf "%s" "$V" | sha256sum | cut -c1-16'], { env: { ...process.env, V: s.passwordVerifier } })
      .toString()
      .trim();
    expect(verifierFingerprint(s.passwordVerifier)).toBe(fromShell);
    expect(readyLine(s.passwordVerifier)).toBe(`stratus: ready ${fromShell}`);
  });

  it('refuses, as invalid with a reason, what it cannot build: ha, an engine or version it has no packages for, a verifier of the wrong form, an odd name', async () => {
    expect(refusal(await spec({ ha: true, memberAddresses: ['10.0.0.4', '10.0.0.5', '10.0.0.6'] }))).toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/^high availability/),
    });
    expect(refusal(await spec({ engine: 'redis', version: '6' }))).toMatchObject({ code: 'invalid', message: expect.stringContaining('Redis 6') });
    expect(refusal(await spec({ version: '12' }))).toMatchObject({ code: 'invalid', message: expect.stringContaining('PostgreSQL 12') });
    expect(refusal(await spec({ engine: 'mysql', version: '8.0' }))).toMatchObject({ code: 'invalid', message: expect.stringContaining('mysql') });
    expect(refusal(await spec({ passwordVerifier: PASSWORD }))).toMatchObject({ code: 'invalid', message: expect.stringContaining('verifier') });
    expect(refusal(await spec({ dbUser: `app'; --` }))).toMatchObject({ code: 'invalid', message: expect.stringContaining('user name') });
  });
});
