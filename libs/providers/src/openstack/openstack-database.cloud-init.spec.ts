import { engineVerifier } from '@stratus/core';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DatabaseServerSpec } from '../databases.driver';
import { DriverError } from '../driver-error';
import { readyLine, renderDatabaseCloudInit, renderHaMemberCloudInit, verifierFingerprint } from './openstack-database.cloud-init';

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

  it('refuses, as invalid with a reason, what it cannot build: ha of an engine without it, an engine or version it has no packages for, a verifier of the wrong form, an odd name', async () => {
    expect(refusal(await spec({ engine: 'clickhouse', ha: true, memberAddresses: ['10.0.0.4', '10.0.0.5', '10.0.0.6'] }))).toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/^high availability \(ha: true\) of clickhouse/),
    });
    expect(refusal(await spec({ engine: 'redis', version: '6' }))).toMatchObject({ code: 'invalid', message: expect.stringContaining('Redis 6') });
    expect(refusal(await spec({ version: '12' }))).toMatchObject({ code: 'invalid', message: expect.stringContaining('PostgreSQL 12') });
    expect(refusal(await spec({ engine: 'mysql', version: '8.0' }))).toMatchObject({ code: 'invalid', message: expect.stringContaining('mysql') });
    expect(refusal(await spec({ passwordVerifier: PASSWORD }))).toMatchObject({ code: 'invalid', message: expect.stringContaining('verifier') });
    expect(refusal(await spec({ dbUser: `app'; --` }))).toMatchObject({ code: 'invalid', message: expect.stringContaining('user name') });
  });
});

describe('the cloud-init of an ha PostgreSQL member on OpenStack', () => {
  const MEMBERS = ['10.0.0.4', '10.0.0.5', '10.0.0.6'];
  const SECRETS = { superuser: 'super-secret-s', replication: 'repl-secret-r', rewind: 'rewind-secret-w', restApi: 'rest-secret-a' };
  const haSpec = (overrides: Partial<DatabaseServerSpec> = {}) => spec({ ha: true, memberAddresses: MEMBERS, extensions: ['pg_stat_statements'], ...overrides });
  const PATHS = ['/usr/local/sbin/stratus-database-setup', '/usr/local/sbin/stratus-credentials', '/etc/stratus/database.env', '/etc/stratus/etcd.env'];

  it("each of the three: PostgreSQL, Patroni and etcd on its member address, the three in etcd's cluster and Patroni's store, the verifier and never the password", async () => {
    const s = await haSpec();
    for (const n of [0, 1, 2]) {
      const userData = renderHaMemberCloudInit(s, n, SECRETS);
      expect(userData).not.toContain(PASSWORD);
      const { config, file } = read(userData);
      expect(config.runcmd).toEqual([['/usr/local/sbin/stratus-database-setup']]);
      expect(file('/etc/stratus/verifier')).toBe(`${s.passwordVerifier}\n`);
      expect(file('/usr/local/sbin/stratus-database-setup')).toContain('apt-get install -y postgresql-16 patroni python3-etcd etcd-server\n');
      expect(file('/etc/stratus/database.env')).toContain(`MEMBER_ADDRESS='${MEMBERS[n]}'\nMEMBER_NAME='member-${n}'\n`);
      const etcd = file('/etc/stratus/etcd.env');
      expect(etcd).toContain(`ETCD_NAME="member-${n}"\n`);
      expect(etcd).toContain(`ETCD_INITIAL_CLUSTER="member-0=http://10.0.0.4:2380,member-1=http://10.0.0.5:2380,member-2=http://10.0.0.6:2380"\n`);
      expect(etcd).toContain(`ETCD_LISTEN_PEER_URLS="http://${MEMBERS[n]}:2380"\n`);
      const patroni = parse(file('/etc/stratus/patroni.yml'));
      expect(patroni).toMatchObject({
        scope: 'postgres-7',
        name: `member-${n}`,
        restapi: { listen: `${MEMBERS[n]}:8008`, connect_address: `${MEMBERS[n]}:8008` },
        etcd3: { hosts: MEMBERS.map((a) => `${a}:2379`) },
        postgresql: { listen: `${MEMBERS[n]}:5432`, bin_dir: '/usr/lib/postgresql/16/bin', parameters: { shared_preload_libraries: 'pg_stat_statements' } },
      });
      // Replication (and pg_rewind) only between the members; the superuser only locally.
      const hba: string[] = patroni.postgresql.pg_hba;
      expect(hba.filter((l) => l.includes('replication'))).toEqual(MEMBERS.map((a) => `host replication replicator ${a}/32 scram-sha-256`));
      expect(hba).toContain('host all postgres 0.0.0.0/0 reject');
      // The members' own secrets are in the one file only root reads, until it is Patroni's.
      for (const secret of Object.values(SECRETS)) {
        expect(config.write_files.filter((f) => f.content.includes(secret)).map((f) => [f.path, f.permissions])).toEqual([['/etc/stratus/patroni.yml', '0600']]);
      }
    }
  });

  it('the primary applies the verifier; every member says ready once its catalog holds it', async () => {
    const credentials = read(renderHaMemberCloudInit(await haSpec(), 0, SECRETS)).file('/usr/local/sbin/stratus-credentials');
    expect(credentials).toContain('"http://$MEMBER_ADDRESS:8008/primary"');
    expect(credentials).toContain(`ALTER ROLE :"user" WITH LOGIN :role PASSWORD :'verifier';`);
    expect(credentials).toContain(`SELECT rolpassword FROM pg_authid WHERE rolname = :'user';`);
    expect(credentials).toContain('echo "stratus: ready $FP" > /dev/console');
  });

  it('every script it writes is valid sh', async () => {
    const { file } = read(renderHaMemberCloudInit(await haSpec({ extensions: ['postgis'] }), 2, SECRETS));
    for (const path of PATHS) {
      const checked = spawnSync('sh', ['-n'], { input: file(path) });
      expect({ path, stderr: checked.stderr.toString() }).toEqual({ path, stderr: '' });
    }
  });

  it("Patroni's own validation takes the settings (patroni --validate-config)", async () => {
    // Patroni checks the host it runs on: the PostgreSQL build in bin_dir (the host's 15), that nothing
    // listens on its own addresses yet, and that etcd answers. Loopback member addresses of this run
    // stand in for the servers', each with a listener on etcd's client port.
    const slot = Number(process.env.STRATUS_TEST_SLOT ?? 0);
    const members = [1, 2, 3].map((i) => `127.201.${slot}.${i}`);
    const etcds = await Promise.all(
      members.map(
        (address) =>
          new Promise<Server>((resolve, reject) => {
            const server = createServer((socket) => socket.destroy());
            server.once('error', reject);
            server.listen(2379, address, () => resolve(server));
          }),
      ),
    );
    const dir = mkdtempSync(join(tmpdir(), 'patroni-'));
    try {
      const s = await haSpec({ version: '15', memberAddresses: members });
      for (const n of [0, 1, 2]) {
        const path = join(dir, `member-${n}.yml`);
        writeFileSync(path, read(renderHaMemberCloudInit(s, n, SECRETS)).file('/etc/stratus/patroni.yml'));
        const checked = spawnSync('patroni', ['--validate-config', path], { encoding: 'utf8' });
        expect({ n, status: checked.status, output: `${checked.stdout}${checked.stderr}`, error: checked.error }).toEqual({ n, status: 0, output: '', error: undefined });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await Promise.all(etcds.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  });

  it('refuses a member it cannot render: no three addresses, no such member, an engine without ha', async () => {
    expect(refusal(await haSpec({ memberAddresses: MEMBERS.slice(0, 2) }))).toMatchObject({ code: 'invalid', message: expect.stringContaining('3 member addresses') });
    const whole = await haSpec();
    expect(() => renderHaMemberCloudInit(whole, 3, SECRETS)).toThrow(/no ha member 3/);
    const clickhouse = await spec({ engine: 'clickhouse', ha: true, memberAddresses: MEMBERS });
    expect(() => renderHaMemberCloudInit(clickhouse, 0, SECRETS)).toThrow(/high availability \(ha: true\) of clickhouse is not built on the openstack provider/);
    // A single server's cloud-init is never one of an ha database.
    expect(refusal(await haSpec())).toMatchObject({ code: 'invalid', message: expect.stringContaining('each member has a cloud-init of its own') });
  });
});
