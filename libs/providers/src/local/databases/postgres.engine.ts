import { PostgresExtension, PRELOADED_EXTENSIONS, sqlExtensionName } from '@stratus/core';
import { execFile } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { DatabaseServerSpec } from '../../databases.driver';
import { DriverError } from '../../driver-error';
import { isAlive, readStat } from '../process-table';
import { RunAs } from '../host-accounts';
import { LocalEngine, ServerCommand, ServerPaths } from './local-engine';
import { choosePostgresDistribution, findPostgresDistributions, hasExtension, lazyPostgresPackages, PostgresDistribution } from './postgres-distributions';
import { PackageNeed } from '../system-packages';

/** Extensions Debian packages for its own PostgreSQL of a version (the npm builds lack them). */
const DEBIAN_EXTENSION_PACKAGES: Partial<Record<PostgresExtension, (version: string) => string>> = {
  postgis: (v) => `postgresql-${v}-postgis-3`,
  pgaudit: (v) => `postgresql-${v}-pgaudit`,
};

const run = promisify(execFile);

/**
 * Every server's pg_hba: a SCRAM password for every connection, the unix
 * socket too (the control plane logs in as `postgres` with the
 * installation's admin password), so nothing is trusted for where it comes
 * from.
 */
export const PG_HBA = `# Written by the local provider.
local all all scram-sha-256
host all all 0.0.0.0/0 scram-sha-256
host all all ::/0 scram-sha-256
`;

/**
 * Templates (and copies) are made with the admin password already set and
 * PG_HBA: a name of their own, so a template of an earlier release (which
 * trusted the socket) is never copied.
 */
const TEMPLATE_PREFIX = 'pg-scram-';

/** The installation's admin password of its PostgreSQL servers (kept by the caller, mode 0600), and its SCRAM verifier. */
export interface PostgresAdmin {
  password: string;
  verifier(): Promise<string>;
}

/** A used copy is replaced this long after, off the path of the create that took it. */
const COPY_REFILL_DELAY_MS = 1_000;
/** Numbers copies in this process (every engine in it: their names share the pid). */
let copySeq = 0;

/**
 * PostgreSQL 16/15/14. Each version (and build) has a template data folder
 * made once with initdb; a new server is a copy of it with its own settings
 * file, administered over its own unix socket as `postgres`, with the
 * installation's admin password.
 *
 * The copy is ~970 files, and on some disks creating files is most of a
 * server's start (bench/README.md, "Spares, second pass"). With `keepCopies` the worker keeps copies made ahead in
 * `<templates>/copies/` and a create renames one into place; each copy is a
 * plain folder identical to its template, so any worker may take any.
 */
export class PostgresEngine implements LocalEngine {
  readonly stopSignal = 'SIGINT';
  private readonly templates = new Map<string, Promise<string>>();
  private copiesWanted = 0;
  /** Distributions with a refill pending or running. */
  private readonly refilling = new Set<string>();

  constructor(
    private readonly templatesDir: string,
    private readonly adminLogin: PostgresAdmin,
  ) {}

  keepCopies(count: number): void {
    this.copiesWanted = count;
    for (const name of existsSync(this.copiesDir) ? readdirSync(this.copiesDir) : []) {
      // Half-made copies of workers that are gone (`.tmp-<pid>-…`), and copies of an earlier release's templates.
      const owner = /^\.tmp-(\d+)-/.exec(name)?.[1];
      const stale = owner ? !isAlive(readStat(Number(owner))) : !name.startsWith(TEMPLATE_PREFIX);
      if (stale) rmSync(join(this.copiesDir, name), { recursive: true, force: true });
    }
    // An earlier release's templates (which trusted the socket) are never copied again.
    for (const name of existsSync(this.templatesDir) ? readdirSync(this.templatesDir) : []) {
      if (name.startsWith('postgres-')) rmSync(join(this.templatesDir, name), { recursive: true, force: true });
    }
  }

  async missing(spec: DatabaseServerSpec): Promise<string | null> {
    const chosen = choosePostgresDistribution(spec.version!, spec.extensions);
    return typeof chosen === 'string' ? chosen : null;
  }

  /**
   * The npm build of the version when it is one installed on first use;
   * else Debian's PostgreSQL of the version with the extension packages the
   * npm builds lack (postgis, pgaudit); null when none of those would help.
   */
  packagesFor(spec: DatabaseServerSpec): PackageNeed | null {
    const version = spec.version!;
    const candidates = findPostgresDistributions(version);
    const wanted = spec.extensions.filter((e) => DEBIAN_EXTENSION_PACKAGES[e] && !candidates.some((d) => hasExtension(d, e)));
    if (wanted.length === 0) {
      const lazy = lazyPostgresPackages()[`pg${version}`];
      const npmBuild = candidates.some((d) => d.id.startsWith('npm-'));
      return !npmBuild && lazy ? { manager: 'npm', packages: [`pg${version}@${lazy}`], why: `the first PostgreSQL ${version} database on this host` } : null;
    }
    const packages = candidates.some((d) => d.id.startsWith('system-')) ? [] : [`postgresql-${version}`];
    packages.push(...wanted.map((e) => DEBIAN_EXTENSION_PACKAGES[e]!(version)));
    return { packages, why: `the first PostgreSQL ${version} database with ${wanted.join(' and ')} on this host` };
  }

  async layOut(spec: DatabaseServerSpec, paths: ServerPaths, runAs: RunAs): Promise<void> {
    const dist = choosePostgresDistribution(spec.version!, spec.extensions);
    if (typeof dist === 'string') throw new DriverError('invalid', dist);
    const template = await this.template(dist, runAs);
    // cp -a keeps the database user's ownership and the 0700 mode PostgreSQL insists on.
    if (!this.takeCopy(dist, paths.data)) await run('cp', ['-a', template, paths.data]);
    this.refillCopies(dist, template, runAs);
    const preload = spec.extensions.filter((e) => PRELOADED_EXTENSIONS.includes(e)).map(sqlExtensionName);
    const settings = [
      `listen_addresses = '${spec.address}'`,
      `port = ${spec.port}`,
      `unix_socket_directories = '${paths.run}'`,
      `max_connections = 100`,
      `shared_buffers = 32MB`,
      ...(preload.length ? [`shared_preload_libraries = '${preload.join(',')}'`] : []),
    ];
    const conf = join(paths.data, 'stratus.conf');
    writeFileSync(conf, settings.join('\n') + '\n', { mode: 0o600 });
    if (runAs.name) chownSync(conf, runAs.uid, runAs.gid);
    writeFileSync(join(paths.dir, 'postgres.json'), JSON.stringify({ distribution: dist }));
  }

  command(_spec: DatabaseServerSpec, paths: ServerPaths): ServerCommand {
    const { distribution } = JSON.parse(readFileSync(join(paths.dir, 'postgres.json'), 'utf8')) as { distribution: PostgresDistribution };
    return { bin: join(distribution.bin, 'postgres'), args: ['-D', paths.data] };
  }

  /**
   * A server laid out from a template of an earlier release trusted every
   * connection on its socket, and its `postgres` had no password: it gets
   * the admin password (single-user mode, which asks for none) and PG_HBA.
   */
  async beforeStart(paths: ServerPaths, runAs: RunAs): Promise<void> {
    const hba = join(paths.data, 'pg_hba.conf');
    if (!/^\s*[^#\s].*\btrust\b/m.test(readFileSync(hba, 'utf8'))) return;
    const { distribution } = JSON.parse(readFileSync(join(paths.dir, 'postgres.json'), 'utf8')) as { distribution: PostgresDistribution };
    const verifier = await this.adminLogin.verifier();
    const single = run(join(distribution.bin, 'postgres'), ['--single', '-D', paths.data, 'postgres'], {
      cwd: paths.data,
      timeout: 60_000,
      ...(runAs.name ? { uid: runAs.uid, gid: runAs.gid } : {}),
      env: { PATH: '/usr/bin:/bin', LANG: 'C' },
    });
    single.child.stdin!.end(`ALTER ROLE postgres PASSWORD '${verifier}';\n`);
    try {
      await single;
    } catch (err) {
      throw new DriverError(
        'retryable',
        `could not set the admin password of ${paths.dir}: ${String(err.stderr ?? err.message)
          .trim()
          .slice(0, 300)}`,
      );
    }
    writeFileSync(hba, PG_HBA, { mode: 0o600 });
    if (runAs.name) chownSync(hba, runAs.uid, runAs.gid);
  }

  async probe(_spec: DatabaseServerSpec, paths: ServerPaths): Promise<boolean> {
    if (!existsSync(join(paths.run, '.s.PGSQL.5432'))) return false;
    return this.admin(paths, 'postgres', async (c) => {
      await c.query('SELECT 1');
      return true;
    });
  }

  async configure(spec: DatabaseServerSpec, paths: ServerPaths): Promise<void> {
    const user = spec.dbUser!;
    const database = spec.dbName!;
    await this.admin(paths, 'postgres', async (c) => {
      const exists = (await c.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [user])).rowCount === 1;
      const options = `LOGIN ${spec.superuser ? 'SUPERUSER' : 'NOSUPERUSER'} PASSWORD ${c.escapeLiteral(spec.passwordVerifier)}`;
      await c.query(`${exists ? 'ALTER' : 'CREATE'} ROLE ${c.escapeIdentifier(user)} ${exists ? 'WITH ' : ''}${options}`);
      if ((await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])).rowCount === 0) {
        await c.query(`CREATE DATABASE ${c.escapeIdentifier(database)} OWNER ${c.escapeIdentifier(user)}`);
      }
    });
    if (spec.extensions.length === 0) return;
    await this.admin(paths, database, async (c) => {
      for (const extension of spec.extensions) {
        await c.query(`CREATE EXTENSION IF NOT EXISTS ${c.escapeIdentifier(sqlExtensionName(extension))} CASCADE`).catch((err) => {
          throw new DriverError('invalid', `extension ${extension} could not be created: ${err.message}`);
        });
      }
    });
  }

  private get copiesDir(): string {
    return join(this.templatesDir, 'copies');
  }

  /** Moves a copy made ahead into `target`; false when there is none (another create may take one at the same time: rename decides). */
  private takeCopy(dist: PostgresDistribution, target: string): boolean {
    if (this.copiesWanted === 0 || !existsSync(this.copiesDir)) return false;
    for (const name of readdirSync(this.copiesDir).filter((n) => n.startsWith(`${TEMPLATE_PREFIX}${dist.id}.`))) {
      try {
        renameSync(join(this.copiesDir, name), target);
        return true;
      } catch {
        // taken meanwhile
      }
    }
    return false;
  }

  /** Brings this distribution's copies back to `copiesWanted`, a second later; each appears whole (made aside, then renamed). */
  private refillCopies(dist: PostgresDistribution, template: string, runAs: RunAs): void {
    if (this.copiesWanted === 0 || this.refilling.has(dist.id)) return;
    this.refilling.add(dist.id);
    const refill = async (): Promise<void> => {
      let scratch = '';
      try {
        mkdirSync(this.copiesDir, { recursive: true, mode: 0o710 });
        closeToOthers(this.copiesDir, runAs);
        const have = () => readdirSync(this.copiesDir).filter((n) => n.startsWith(`${TEMPLATE_PREFIX}${dist.id}.`)).length;
        while (have() < this.copiesWanted) {
          const n = `${process.pid}-${++copySeq}`;
          scratch = join(this.copiesDir, `.tmp-${n}`);
          await run('cp', ['-a', template, scratch]);
          renameSync(scratch, join(this.copiesDir, `${TEMPLATE_PREFIX}${dist.id}.${n}`));
        }
      } catch {
        // A create without a copy makes its own.
        if (scratch) rmSync(scratch, { recursive: true, force: true });
      } finally {
        this.refilling.delete(dist.id);
      }
    };
    // Fire and forget: refill catches its own failures (a create without a copy makes its own).
    setTimeout(() => void refill(), COPY_REFILL_DELAY_MS).unref();
  }

  private async admin<T>(paths: ServerPaths, database: string, work: (c: Client) => Promise<T>): Promise<T> {
    const client = new Client({ host: paths.run, port: 5432, user: 'postgres', password: this.adminLogin.password, database, connectionTimeoutMillis: 5_000 });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** The template of a distribution, made once (initdb) and shared by every server of it. */
  private template(dist: PostgresDistribution, runAs: RunAs): Promise<string> {
    let pending = this.templates.get(dist.id);
    if (!pending) {
      pending = this.adminLogin.verifier().then((verifier) => buildTemplate(this.templatesDir, dist, runAs, verifier));
      pending.catch(() => this.templates.delete(dist.id));
      this.templates.set(dist.id, pending);
    }
    return pending;
  }
}

/**
 * initdb into a scratch folder, then one rename: a template either exists
 * whole or not at all, even with several workers building it at once.
 * `postgres` gets `adminVerifier` (a SCRAM verifier: initdb stores it as given).
 */
export async function buildTemplate(templatesDir: string, dist: PostgresDistribution, runAs: RunAs, adminVerifier: string): Promise<string> {
  const final = join(templatesDir, `${TEMPLATE_PREFIX}${dist.id}`);
  if (existsSync(join(final, 'PG_VERSION'))) return final;
  mkdirSync(templatesDir, { recursive: true, mode: 0o710 });
  closeToOthers(templatesDir, runAs);
  const scratch = join(templatesDir, `.postgres-${dist.id}-${process.pid}-${Date.now()}`);
  const pwfile = `${scratch}.pw`;
  mkdirSync(scratch, { mode: 0o700 });
  writeFileSync(pwfile, `${adminVerifier}\n`, { mode: 0o600 });
  if (runAs.name) for (const made of [scratch, pwfile]) chownSync(made, runAs.uid, runAs.gid);
  try {
    await run(
      join(dist.bin, 'initdb'),
      ['-D', scratch, '-U', 'postgres', `--pwfile=${pwfile}`, '--auth-local=scram-sha-256', '--auth-host=scram-sha-256', '-E', 'UTF8', '--no-locale', '--no-sync'],
      { cwd: templatesDir, ...(runAs.name ? { uid: runAs.uid, gid: runAs.gid } : {}), env: { PATH: '/usr/bin:/bin', LANG: 'C' } },
    );
    writeFileSync(join(scratch, 'pg_hba.conf'), PG_HBA, { mode: 0o600 });
    if (runAs.name) chownSync(join(scratch, 'pg_hba.conf'), runAs.uid, runAs.gid);
    appendFileSync(join(scratch, 'postgresql.conf'), "\n# Per-server settings, written by the local provider.\ninclude_if_exists = 'stratus.conf'\n");
    try {
      renameSync(scratch, final);
    } catch (err) {
      // Another worker finished first: use theirs.
      if (!existsSync(join(final, 'PG_VERSION'))) throw err;
    }
  } catch (err) {
    throw new DriverError('retryable', `initdb for PostgreSQL ${dist.version} (${dist.id}) failed: ${err.stderr ?? err.message}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(pwfile, { force: true });
  }
  return final;
}

/** root's, passable by the database user's group only: no instance reaches a template or copy. */
function closeToOthers(dir: string, runAs: RunAs): void {
  if (runAs.name) chownSync(dir, process.getuid!(), runAs.gid);
  chmodSync(dir, 0o710);
}
