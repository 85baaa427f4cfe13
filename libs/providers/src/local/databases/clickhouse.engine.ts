import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { DatabaseServerSpec } from '../../databases.driver';
import { RunAs } from '../host-accounts';
import { chownTree } from '../file-ownership';
import { findExecutable } from './host-binaries';
import { PackageNeed } from '../system-packages';
import { LocalEngine, ServerCommand, ServerPaths } from './local-engine';

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * ClickHouse from the system package (Debian's is 18.16: users exist only in
 * the users file, with `password_sha256_hex`; there is no CREATE USER). No
 * `default` user: the app user is the only one. The database is made by its
 * folders before the first start, which ClickHouse attaches on start.
 */
export class ClickHouseEngine implements LocalEngine {
  readonly stopSignal = 'SIGTERM';

  async missing(): Promise<string | null> {
    return this.bin() ? null : 'ClickHouse is not installed on this host (Debian package clickhouse-server)';
  }

  packagesFor(): PackageNeed | null {
    return this.bin() ? null : { packages: ['clickhouse-server'], why: 'the first analytics database on this host' };
  }

  async layOut(spec: DatabaseServerSpec, paths: ServerPaths, runAs: RunAs): Promise<void> {
    const data = paths.data;
    for (const d of [data, join(data, 'tmp'), join(data, 'user_files'), join(data, 'format_schemas'), join(data, 'metadata'), join(data, 'data')]) {
      mkdirSync(d, { recursive: true, mode: 0o700 });
    }
    if (spec.dbName !== 'default') {
      mkdirSync(join(data, 'metadata', spec.dbName!), { recursive: true, mode: 0o700 });
      mkdirSync(join(data, 'data', spec.dbName!), { recursive: true, mode: 0o700 });
    }
    writeFileSync(
      join(data, 'config.xml'),
      `<?xml version="1.0"?>
<!-- Written by the local provider. -->
<yandex>
  <logger><level>warning</level><console>1</console></logger>
  <listen_host>${spec.address}</listen_host>
  <http_port>${spec.port}</http_port>
  <tcp_port>9000</tcp_port>
  <path>${data}/</path>
  <tmp_path>${data}/tmp/</tmp_path>
  <user_files_path>${data}/user_files/</user_files_path>
  <format_schema_path>${data}/format_schemas/</format_schema_path>
  <users_config>${data}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>${xml(spec.dbName!)}</default_database>
  <mark_cache_size>268435456</mark_cache_size>
  <uncompressed_cache_size>0</uncompressed_cache_size>
  <max_connections>1024</max_connections>
</yandex>
`,
      { mode: 0o600 },
    );
    writeUsers(spec, data);
    chownTree(data, runAs);
  }

  /** The app user's verifier is in users.xml (ClickHouse 18.16 has no CREATE USER): a new one is written there and the server restarted. */
  credentialsStale(spec: DatabaseServerSpec, paths: ServerPaths): boolean {
    try {
      return !readFileSync(join(paths.data, 'users.xml'), 'utf8').includes(`<password_sha256_hex>${spec.passwordVerifier}</password_sha256_hex>`);
    } catch {
      return false;
    }
  }

  writeCredentials(spec: DatabaseServerSpec, paths: ServerPaths, runAs: RunAs): void {
    writeUsers(spec, paths.data);
    chownTree(join(paths.data, 'users.xml'), runAs);
  }

  command(_spec: DatabaseServerSpec, paths: ServerPaths): ServerCommand {
    return { bin: this.bin() ?? 'clickhouse-server', args: [`--config-file=${join(paths.data, 'config.xml')}`] };
  }

  /** `/ping` answers `Ok.` without credentials once the server serves. */
  probe(spec: DatabaseServerSpec): Promise<boolean> {
    return new Promise((resolve) => {
      const req = request({ host: spec.address, port: spec.port, path: '/ping', timeout: 1_000 }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.on('error', () => resolve(false));
      req.on('timeout', () => req.destroy());
      req.end();
    });
  }

  async configure(): Promise<void> {
    // Users and the database are laid out before the first start.
  }

  private bin(): string | null {
    return findExecutable('clickhouse-server');
  }
}

/** users.xml: the app user, with its verifier, is the only user. */
function writeUsers(spec: DatabaseServerSpec, data: string): void {
  writeFileSync(
    join(data, 'users.xml'),
    `<?xml version="1.0"?>
<!-- Written by the local provider: the app user is the only user. -->
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users>
    <${xml(spec.dbUser!)}>
      <password_sha256_hex>${spec.passwordVerifier}</password_sha256_hex>
      <networks><ip>::/0</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </${xml(spec.dbUser!)}>
  </users>
  <quotas><default></default></quotas>
</yandex>
`,
    { mode: 0o600 },
  );
}
