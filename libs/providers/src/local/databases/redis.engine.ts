import { chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { DatabaseServerSpec } from '../../databases.driver';
import { RunAs } from '../run-user';
import { findExecutable, versionOutput } from './host-binaries';
import { LocalEngine, ServerCommand, ServerPaths } from './local-engine';

/**
 * Redis from the system package. The password is an ACL rule holding its
 * SHA-256 (`requirepass` would take a hash as the literal password), in a
 * config file only the run user can read.
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

  async layOut(spec: DatabaseServerSpec, paths: ServerPaths, runAs: RunAs): Promise<void> {
    mkdirSync(paths.data, { mode: 0o700 });
    const conf = join(paths.data, 'redis.conf');
    writeFileSync(
      conf,
      [
        '# Written by the local provider.',
        `bind ${spec.address}`,
        `port ${spec.port}`,
        'daemonize no',
        // Keeps the environment readable in /proc (the retitle overwrites it), where adoption finds the server.
        'set-proc-title no',
        'protected-mode yes',
        `dir ${paths.data}`,
        'dbfilename dump.rdb',
        'save 3600 1 300 100 60 10000',
        'appendonly no',
        'logfile ""',
        `user default on #${spec.passwordVerifier} ~* &* +@all`,
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    if (runAs.name) {
      chownSync(paths.data, runAs.uid, runAs.gid);
      chownSync(conf, runAs.uid, runAs.gid);
    }
  }

  command(_spec: DatabaseServerSpec, paths: ServerPaths): ServerCommand {
    return { bin: findExecutable('redis-server') ?? 'redis-server', args: [join(paths.data, 'redis.conf')] };
  }

  /** Up when PING gets PONG or the demand to authenticate; LOADING and errors are not up. */
  probe(spec: DatabaseServerSpec): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = connect({ host: spec.address, port: spec.port });
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

  async configure(): Promise<void> {
    // Everything is in the config file.
  }

  private find(): Promise<{ bin: string; version: string } | null> {
    this.installed ??= (async () => {
      const bin = findExecutable('redis-server');
      if (!bin) return null;
      const out = await versionOutput(bin, ['--version']);
      const version = /v=(\d+\.\d+\.\d+)/.exec(out ?? '')?.[1];
      return version ? { bin, version } : null;
    })();
    return this.installed;
  }
}
