import Redis from 'ioredis';
import { chownSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { DatabaseServerSpec } from '../../databases.driver';
import { RunAs } from '../host-accounts';
import { findExecutable, versionOutput } from './host-binaries';
import { PackageNeed } from '../system-packages';
import { LocalEngine, ServerCommand, ServerPaths, SpareSupport } from './local-engine';

/**
 * Redis from the system package. The password is an ACL rule holding its
 * SHA-256 (`requirepass` would take a hash as the literal password), in a
 * config file only the database user can read.
 */
export class RedisEngine implements LocalEngine {
  readonly stopSignal = 'SIGTERM';
  private installed: Promise<{ bin: string; version: string } | null> | null = null;

  async missing(spec: DatabaseServerSpec): Promise<string | null> {
    const found = await this.find();
    if (!found) return 'Redis is not installed on this host (Debian package redis-server)';
    const major = found.version.split('.')[0];
    if (major !== spec.version) {
      return `Redis ${spec.version} is not available on this host: it has Redis ${found.version} only`;
    }
    return null;
  }

  packagesFor(): PackageNeed | null {
    return findExecutable('redis-server') ? null : { packages: ['redis-server'], why: 'the first cache on this host' };
  }

  async layOut(spec: DatabaseServerSpec, paths: ServerPaths, runAs: RunAs): Promise<void> {
    mkdirSync(paths.data, { mode: 0o700 });
    this.writeConfig(paths, runAs, cacheSettings(spec));
  }

  command(_spec: DatabaseServerSpec, paths: ServerPaths): ServerCommand {
    return serverCommand(paths);
  }

  /** The only user's verifier is in redis.conf; the running server has no admin login to change it through. */
  credentialsStale(spec: DatabaseServerSpec, paths: ServerPaths): boolean {
    try {
      return !readFileSync(join(paths.data, 'redis.conf'), 'utf8').includes(` #${spec.passwordVerifier} `);
    } catch {
      return false;
    }
  }

  writeCredentials(spec: DatabaseServerSpec, paths: ServerPaths, runAs: RunAs): void {
    this.writeConfig(paths, runAs, cacheSettings(spec));
  }

  probe(spec: DatabaseServerSpec): Promise<boolean> {
    return ping(spec.address, spec.port);
  }

  async configure(): Promise<void> {
    // Everything is in the config file.
  }

  /**
   * Redis 7 changes `bind`, `port` and users while running, so a spare
   * started with no TCP listener and a password-less user on its unix socket
   * (mode 0700, in the database user's 0700 folder, behind folders only that
   * user may pass) becomes any cache in one transaction.
   */
  readonly spare: SpareSupport = {
    layOut: async (paths, runAs) => {
      mkdirSync(paths.data, { mode: 0o700 });
      this.writeConfig(paths, runAs, ['port 0', `unixsocket ${spareSocket(paths)}`, 'unixsocketperm 700', 'user default on nopass ~* &* +@all']);
    },
    command: serverCommand,
    // The link stays open until the claim: connecting is a fifth of a claim's time.
    connect: async (paths) => {
      const admin = new Redis({ path: spareSocket(paths), lazyConnect: true, enableReadyCheck: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
      // Errors surface as failed commands; without a listener ioredis would report each on the console.
      admin.on('error', () => undefined);
      try {
        await admin.connect();
        if ((await admin.ping()) !== 'PONG') throw new Error('not up');
      } catch {
        admin.disconnect();
        return null;
      }
      return {
        claim: async (spec, claimed, runAs) => {
          // One transaction: the address opens with the password already required.
          const replies = await admin
            .multi()
            .call('ACL', 'SETUSER', 'default', 'resetpass', `#${spec.passwordVerifier}`)
            .call('CONFIG', 'SET', 'bind', spec.address, 'port', String(spec.port))
            .exec();
          const failed = replies?.find(([err]) => err);
          if (!replies || failed) throw new Error(`claiming a spare Redis failed: ${failed?.[0]?.message ?? 'transaction discarded'}`);
          // What a restart reads: the cache's own settings, no unix socket.
          this.writeConfig(claimed, runAs, cacheSettings(spec));
        },
        close: () => admin.disconnect(),
      };
    },
  };

  /** `redis.conf` in the data folder: the given lines after what every server of ours has. */
  private writeConfig(paths: ServerPaths, runAs: RunAs, lines: string[]): void {
    const conf = join(paths.data, 'redis.conf');
    writeFileSync(
      conf,
      [
        '# Written by the local provider.',
        'daemonize no',
        // Keeps the environment readable in /proc (the retitle overwrites it), where adoption finds the server.
        'set-proc-title no',
        'protected-mode yes',
        `dir ${paths.data}`,
        'dbfilename dump.rdb',
        'save 3600 1 300 100 60 10000',
        'appendonly no',
        'logfile ""',
        ...lines,
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    if (runAs.name) {
      chownSync(paths.data, runAs.uid, runAs.gid);
      chownSync(conf, runAs.uid, runAs.gid);
    }
  }

  private find(): Promise<{ bin: string; version: string } | null> {
    this.installed ??= (async () => {
      const bin = findExecutable('redis-server');
      if (!bin) return null;
      const out = await versionOutput(bin, ['--version']);
      const version = /v=(\d+\.\d+\.\d+)/.exec(out ?? '')?.[1];
      return version ? { bin, version } : null;
    })();
    // Not found is asked again: the worker may install it meanwhile (SystemPackages).
    const found = this.installed;
    void found.then((f) => {
      if (f === null && this.installed === found) this.installed = null;
    });
    return found;
  }
}

/** Settings and all: the config file in the data folder. */
function serverCommand(paths: ServerPaths): ServerCommand {
  return { bin: findExecutable('redis-server') ?? 'redis-server', args: [join(paths.data, 'redis.conf')] };
}

/** Address, port and the password as an ACL rule: what makes a server the cache of `spec`. */
function cacheSettings(spec: DatabaseServerSpec): string[] {
  return [`bind ${spec.address}`, `port ${spec.port}`, `user default on #${spec.passwordVerifier} ~* &* +@all`];
}

function spareSocket(paths: ServerPaths): string {
  return join(paths.run, 'redis.sock');
}

/** Up when PING gets PONG or the demand to authenticate; LOADING and errors are not up. */
function ping(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG') || reply.startsWith('-NOAUTH'));
    });
    socket.once('error', () => done(false));
    socket.setTimeout(1_000, () => done(false));
  });
}
