import { RelationalEngine } from '@stratus/core';
import { execFile, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DatabaseServerSpec } from '../../databases.driver';
import { DriverError } from '../../driver-error';
import { RunAs } from '../host-accounts';
import { isAlive, readStat } from '../process-table';
import { PackageNeed } from '../system-packages';
import { findExecutable, versionOutput } from './host-binaries';
import { LocalEngine, ServerCommand, ServerPaths } from './local-engine';

const run = promisify(execFile);

/** What the host has of one engine: the server binary and its version (`10.11.19`, `8.4.3`). */
interface Found {
  bin: string;
  version: string;
}

/** The unix socket every server of ours listens on, in its own 0700 `run` folder. */
const socketOf = (paths: ServerPaths) => join(paths.run, 'mysqld.sock');

/**
 * Templates are made with root reachable only over the server's own unix
 * socket, by the worker's OS user (unix_socket / auth_socket: the kernel
 * says who connects, there is no password to keep), and no other account:
 * a name of their own, so a template made some other way is never copied.
 */
const TEMPLATE_PREFIX = 'socket-root-';

/** A used copy is replaced this long after, off the path of the create that took it. */
const COPY_REFILL_DELAY_MS = 1_000;
/** Numbers copies in this process. */
let copySeq = 0;

/**
 * MariaDB (Debian's mariadb-server) and MySQL (a `mysqld` the host has, or
 * MYSQL_SERVER_BIN), one engine class for the family: the same protocol,
 * client, verifier and layout, with the differences in the two places they
 * differ (how a template is made, how a user is given a verifier). As
 * PostgreSQL is, each server is a copy of a per-version template data folder
 * with its own settings file; the control plane administers it as root over
 * the server's unix socket, in a folder only the database user (and root)
 * may pass, so no instance and no network client can be root. The app user
 * is created from its mysql_native_password verifier, never a password.
 */
export class MySqlFamilyEngine implements LocalEngine {
  readonly stopSignal = 'SIGTERM';
  private readonly templates = new Map<string, Promise<string>>();
  private copiesWanted = 0;
  /** Templates with a refill pending or running. */
  private readonly refilling = new Set<string>();

  constructor(
    readonly engine: RelationalEngine,
    private readonly templatesDir: string,
    /** MySQL only: a server binary configured by the operator (MYSQL_SERVER_BIN). */
    private readonly configuredBin?: string,
  ) {}

  /**
   * Keeps `count` copies of each used template made ahead in their own
   * folder (PostgreSQL's copies have theirs), so a create renames one into
   * place instead of copying 22 MB on its path. Half-made copies of workers
   * that are gone are removed.
   */
  keepCopies(count: number): void {
    this.copiesWanted = count;
    for (const name of existsSync(this.copiesDir) ? readdirSync(this.copiesDir) : []) {
      const owner = /^\.tmp-(\d+)-/.exec(name)?.[1];
      if (owner && !isAlive(readStat(Number(owner)))) rmSync(join(this.copiesDir, name), { recursive: true, force: true });
    }
  }

  private get copiesDir(): string {
    return join(this.templatesDir, `${this.engine}-copies`);
  }

  /** Moves a copy made ahead of template `id` into `target`; false when there is none (rename decides between two takers). */
  private takeCopy(id: string, target: string): boolean {
    if (this.copiesWanted === 0 || !existsSync(this.copiesDir)) return false;
    for (const name of readdirSync(this.copiesDir).filter((n) => n.startsWith(`${TEMPLATE_PREFIX}${id}.`))) {
      try {
        renameSync(join(this.copiesDir, name), target);
        return true;
      } catch {
        // taken meanwhile
      }
    }
    return false;
  }

  /** Brings template `id`'s copies back to `copiesWanted`, a second later; each appears whole (made aside, then renamed). */
  private refillCopies(id: string, template: string, runAs: RunAs): void {
    if (this.copiesWanted === 0 || this.refilling.has(id)) return;
    this.refilling.add(id);
    const refill = async (): Promise<void> => {
      let scratch = '';
      try {
        mkdirSync(this.copiesDir, { recursive: true, mode: 0o710 });
        if (runAs.name) chownSync(this.copiesDir, process.getuid!(), runAs.gid);
        chmodSync(this.copiesDir, 0o710);
        const have = () => readdirSync(this.copiesDir).filter((n) => n.startsWith(`${TEMPLATE_PREFIX}${id}.`)).length;
        while (have() < this.copiesWanted) {
          const n = `${process.pid}-${++copySeq}`;
          scratch = join(this.copiesDir, `.tmp-${n}`);
          await run('cp', ['-a', template, scratch]);
          renameSync(scratch, join(this.copiesDir, `${TEMPLATE_PREFIX}${id}.${n}`));
        }
      } catch {
        // A create without a copy makes its own.
        if (scratch) rmSync(scratch, { recursive: true, force: true });
      } finally {
        this.refilling.delete(id);
      }
    };
    setTimeout(() => void refill(), COPY_REFILL_DELAY_MS).unref();
  }

  private get label(): string {
    return this.engine === 'mariadb' ? 'MariaDB' : 'MySQL';
  }

  async missing(spec: DatabaseServerSpec): Promise<string | null> {
    const found = await this.find();
    if (!found) {
      return this.engine === 'mariadb'
        ? 'MariaDB is not installed on this host (Debian packages mariadb-server and mariadb-client)'
        : `MySQL is not available on this host: no MySQL server binary (mysqld) was found${this.configuredBin ? ` at MYSQL_SERVER_BIN=${this.configuredBin}` : ''}; set MYSQL_SERVER_BIN to a MySQL mysqld (Debian 12 packages MariaDB only), or use engine mariadb`;
    }
    if (!found.version.startsWith(`${spec.version}.`)) {
      return `${this.label} ${spec.version} is not available on this host: it has ${this.label} ${found.version} only`;
    }
    if (!adminClient()) return `the MariaDB/MySQL client is not installed on this host (Debian package mariadb-client)`;
    return null;
  }

  packagesFor(): PackageNeed | null {
    // Debian has no MySQL: only MariaDB can be installed on first use.
    if (this.engine !== 'mariadb') return null;
    return findExecutable('mariadbd') && adminClient() ? null : { packages: ['mariadb-server', 'mariadb-client'], why: 'the first MariaDB relational database on this host' };
  }

  async layOut(spec: DatabaseServerSpec, paths: ServerPaths, runAs: RunAs): Promise<void> {
    const found = await this.find();
    if (!found) throw new DriverError('invalid', (await this.missing(spec)) ?? `${this.label} is not installed`);
    const template = await this.template(found, runAs);
    const id = templateId(this.engine, found);
    // cp -a keeps the database user's ownership and modes.
    if (!this.takeCopy(id, paths.data)) await run('cp', ['-a', template, paths.data]);
    this.refillCopies(id, template, runAs);
    const files = join(paths.data, '.files');
    mkdirSync(files, { mode: 0o700 });
    if (runAs.name) chownSync(files, runAs.uid, runAs.gid);
    const conf = join(paths.dir, 'my.cnf');
    writeFileSync(conf, this.settings(spec, paths).join('\n') + '\n', { mode: 0o640 });
    // Root's, readable by the database user's group: the server reads it, cannot change it.
    if (runAs.name) chownSync(conf, process.getuid!(), runAs.gid);
    writeFileSync(join(paths.dir, 'mysql.json'), JSON.stringify({ bin: found.bin }));
  }

  /**
   * Each server's settings. Beside address, port and socket: FILE reaches
   * only the server's own `.files` folder (every server runs as the same
   * database user, so LOAD_FILE anywhere else could read another's data),
   * LOAD DATA LOCAL is off, and names are never resolved (accounts are by
   * address, and the app user's host is `%`).
   */
  private settings(spec: DatabaseServerSpec, paths: ServerPaths): string[] {
    return [
      '# Written by the local provider.',
      '[mysqld]',
      `datadir=${paths.data}`,
      `socket=${socketOf(paths)}`,
      `pid-file=${join(paths.run, 'mysqld.pid')}`,
      `bind-address=${spec.address}`,
      `port=${spec.port}`,
      'skip-name-resolve',
      `secure-file-priv=${join(paths.data, '.files')}`,
      'local-infile=0',
      'max-connections=100',
      'innodb-buffer-pool-size=32M',
      'performance-schema=OFF',
      'character-set-server=utf8mb4',
      ...(this.engine === 'mariadb'
        ? ['innodb-log-file-size=4M', 'skip-log-bin']
        : ['mysql-native-password=ON', 'disable-log-bin', 'plugin-load-add=auth_socket.so', 'mysqlx=OFF']),
    ];
  }

  command(_spec: DatabaseServerSpec, paths: ServerPaths): ServerCommand {
    const bin = this.engine === 'mariadb' ? (findExecutable('mariadbd') ?? 'mariadbd') : (this.configuredBin ?? findExecutable('mysqld') ?? 'mysqld');
    // --defaults-file: nothing of the host's /etc/mysql applies (least of all the system server's own settings).
    return { bin, args: [`--defaults-file=${join(paths.dir, 'my.cnf')}`] };
  }

  /** Up once its socket answers and the network port sends a protocol greeting (MySQL protocol 10). */
  async probe(spec: DatabaseServerSpec, paths: ServerPaths): Promise<boolean> {
    if (!existsSync(socketOf(paths))) return false;
    return greets(spec.address, spec.port);
  }

  /**
   * The database and the app user from its verifier, with all privileges on
   * the database, or on everything when superuser. Safe to repeat, and how
   * a reset password reaches a running server: ALTER USER changes the
   * verifier in place, sessions already open stay open.
   */
  async configure(spec: DatabaseServerSpec, paths: ServerPaths): Promise<void> {
    const db = ident(spec.dbName!);
    const user = `${literal(spec.dbUser!)}@'%'`;
    const verifier = literal(spec.passwordVerifier);
    const identified = this.engine === 'mariadb' ? `IDENTIFIED VIA mysql_native_password USING ${verifier}` : `IDENTIFIED WITH mysql_native_password AS ${verifier}`;
    await this.admin(paths, [
      `CREATE DATABASE IF NOT EXISTS ${db}`,
      `CREATE USER IF NOT EXISTS ${user} ${identified}`,
      `ALTER USER ${user} ${identified}`,
      spec.superuser ? `GRANT ALL PRIVILEGES ON *.* TO ${user} WITH GRANT OPTION` : `GRANT ALL PRIVILEGES ON ${db}.* TO ${user}`,
    ]);
  }

  /** SQL run as root over the server's socket; fed on stdin, so no verifier shows in a process list. */
  private async admin(paths: ServerPaths, statements: string[]): Promise<void> {
    const client = adminClient();
    if (!client) throw new DriverError('invalid', 'the MariaDB/MySQL client is not installed on this host (Debian package mariadb-client)');
    await new Promise<void>((resolve, reject) => {
      const child = spawn(client, ['--no-defaults', `--socket=${socketOf(paths)}`, '--user=root', '--batch', '--connect-timeout=5'], {
        stdio: ['pipe', 'ignore', 'pipe'],
        env: { PATH: '/usr/bin:/bin', LANG: 'C' },
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.once('error', reject);
      child.once('exit', (code) =>
        code === 0 ? resolve() : reject(new DriverError('retryable', `${this.label} admin statements failed: ${stderr.trim().slice(0, 300) || `exit ${code}`}`)),
      );
      child.stdin.end(statements.map((s) => `${s};`).join('\n') + '\n');
    });
  }

  /** The server binary of this engine and its version; null when the host has none (a MariaDB is never taken for MySQL). */
  private async find(): Promise<Found | null> {
    const bin = this.engine === 'mariadb' ? findExecutable('mariadbd') : (this.configuredBin ?? findExecutable('mysqld'));
    if (!bin || !existsSync(bin)) return null;
    const out = (await versionOutput(bin, ['--version'])) ?? '';
    const version = /Ver\s+(\d+\.\d+\.\d+)/.exec(out)?.[1];
    if (!version) return null;
    // Debian's /usr/sbin/mysqld is MariaDB's: not a MySQL.
    if ((this.engine === 'mysql') === /mariadb/i.test(out)) return null;
    return { bin, version };
  }

  /** The template of a server binary's version, made once and shared by every server of it. */
  private template(found: Found, runAs: RunAs): Promise<string> {
    const id = templateId(this.engine, found);
    let pending = this.templates.get(id);
    if (!pending) {
      pending = this.buildTemplate(id, found, runAs);
      pending.catch(() => this.templates.delete(id));
      this.templates.set(id, pending);
    }
    return pending;
  }

  /**
   * The system tables, made into a scratch folder and renamed into place:
   * a template exists whole or not at all, even with several workers
   * building it at once.
   */
  private async buildTemplate(id: string, found: Found, runAs: RunAs): Promise<string> {
    const final = join(this.templatesDir, `${TEMPLATE_PREFIX}${id}`);
    if (existsSync(join(final, 'mysql'))) return final;
    mkdirSync(this.templatesDir, { recursive: true, mode: 0o710 });
    if (runAs.name) chownSync(this.templatesDir, process.getuid!(), runAs.gid);
    chmodSync(this.templatesDir, 0o710);
    const scratch = join(this.templatesDir, `.${id}-${process.pid}-${Date.now()}`);
    mkdirSync(scratch, { mode: 0o700 });
    if (runAs.name) chownSync(scratch, runAs.uid, runAs.gid);
    // Root's login is the worker's own OS user over the socket, whoever that is.
    const admin = userInfo().username;
    const env = { PATH: '/usr/sbin:/usr/bin:/bin', LANG: 'C' };
    try {
      if (this.engine === 'mariadb') {
        const installer = findExecutable('mariadb-install-db');
        if (!installer) throw new Error('mariadb-install-db is missing (Debian package mariadb-server)');
        await run(
          installer,
          [
            '--no-defaults',
            `--datadir=${scratch}`,
            ...(runAs.name ? [`--user=${runAs.name}`] : []),
            '--auth-root-authentication-method=socket',
            `--auth-root-socket-user=${admin}`,
            '--skip-test-db',
            '--skip-name-resolve',
            // The InnoDB redo log is most of a fresh data folder's size at the default (100 MB): every copy would carry it.
            '--innodb-log-file-size=4M',
          ],
          { cwd: this.templatesDir, env, timeout: 120_000 },
        );
      } else {
        const init = `${scratch}.sql`;
        writeFileSync(init, `INSTALL PLUGIN auth_socket SONAME 'auth_socket.so';\nALTER USER 'root'@'localhost' IDENTIFIED WITH auth_socket AS ${literal(admin)};\n`, {
          mode: 0o644,
        });
        try {
          await run(found.bin, ['--no-defaults', '--initialize-insecure', `--datadir=${scratch}`, ...(runAs.name ? [`--user=${runAs.name}`] : []), `--init-file=${init}`], {
            cwd: this.templatesDir,
            env,
            timeout: 120_000,
          });
        } finally {
          rmSync(init, { force: true });
        }
      }
      try {
        renameSync(scratch, final);
      } catch (err) {
        // Another worker finished first: use theirs.
        if (!existsSync(join(final, 'mysql'))) throw err;
      }
    } catch (err) {
      throw new DriverError(
        'retryable',
        `making the ${this.label} ${found.version} template failed: ${String(err.stderr || err.message)
          .trim()
          .slice(-300)}`,
      );
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    return final;
  }
}

/** A template's name after TEMPLATE_PREFIX: engine and server version. */
function templateId(engine: RelationalEngine, found: Found): string {
  return `${engine}-${found.version}`;
}

/** The client the worker administers servers with: MariaDB's, which speaks to MySQL too. */
function adminClient(): string | null {
  return findExecutable('mariadb') ?? findExecutable('mysql');
}

/** A quoted SQL string; what goes in is an identifier or verifier of a safe alphabet (validated at the API), quoted regardless. */
function literal(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

function ident(value: string): string {
  return `\`${value.replace(/`/g, '``')}\``;
}

/**
 * True once the server answers on the network: its handshake (protocol
 * version 10 as the first payload byte), or an error packet (0xff): until
 * configure made the app user, no account matches a network client, and
 * the server says so before any handshake.
 */
function greets(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('data', (chunk) => done(chunk.length > 4 && (chunk[4] === 10 || chunk[4] === 0xff)));
    socket.once('error', () => done(false));
    socket.setTimeout(1_000, () => done(false));
  });
}
