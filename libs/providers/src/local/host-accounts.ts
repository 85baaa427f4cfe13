import { SystemUser } from '@stratus/core';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { hostNames } from './installation';

const run = promisify(execFile);

/** Who a process of ours runs as. `name` is empty when it runs as the control plane's own user. */
export interface RunAs extends SystemUser {
  name: string;
}

/** Instance users get uids of their own, above any system or login account. */
const INSTANCE_UIDS = ['-K', 'UID_MIN=2000000', '-K', 'UID_MAX=2999999'];
/**
 * useradd, userdel and groupadd take a lock on /etc/passwd and /etc/group
 * and give up at once when another holds it (creates side by side, another
 * installation on the host): tried again this often, a little apart.
 */
const LOCK_ATTEMPTS = 60;
const LOCK_RETRY_MS = 50;

/**
 * The host accounts of one installation on the local provider. Run as root,
 * each instance gets a user of its own (made at create, removed at delete)
 * whose primary group is the installation's instances group, and every
 * database server runs as the installation's database user, which no
 * instance is. A control plane that is not root cannot change users: then
 * everything runs as itself and nothing is isolated (`isolated` is false).
 */
export class HostAccounts {
  readonly isolated = process.getuid?.() === 0;
  private group: Promise<number> | null = null;
  private database: Promise<RunAs> | null = null;

  /** `installation` is the id of installationId(DATA_DIR). */
  constructor(readonly installation: string) {}

  /** The user instance `id` runs as; null when it has none (not made yet, or removed). */
  instanceUser(id: string): RunAs | null {
    if (!this.isolated) return self();
    return findUser(hostNames.instanceUser(this.installation, id));
  }

  async ensureInstanceUser(id: string): Promise<RunAs> {
    if (!this.isolated) return self();
    const name = hostNames.instanceUser(this.installation, id);
    const gid = await this.instancesGroup();
    const made = await ensureAccount(name, () => [
      'useradd',
      ['-M', '-N', '-g', String(gid), ...INSTANCE_UIDS, '-K', 'SUB_UID_COUNT=0', '-K', 'SUB_GID_COUNT=0', '-s', '/usr/sbin/nologin', name],
    ]);
    if (made.gid !== gid) throw new Error(`user ${name} exists with primary group ${made.gid}, not the instances group ${gid}`);
    return made;
  }

  /** Removes the instance's user; its processes must be gone (userdel refuses otherwise). */
  async removeInstanceUser(id: string): Promise<void> {
    if (!this.isolated) return;
    await removeAccount(hostNames.instanceUser(this.installation, id));
  }

  /**
   * Users of this installation's instances whose control folder is gone
   * (a delete that died between its steps): removed. The user list is read
   * before the folders, and a create makes its folder before its user, so
   * a create in progress never loses its user.
   */
  async removeLeftoverInstanceUsers(instancesDir: string): Promise<string[]> {
    if (!this.isolated) return [];
    const users = this.instanceUserNames();
    const wanted = new Set(readdirSync(instancesDir).map((id) => hostNames.instanceUser(this.installation, id)));
    const leftovers = users.filter((name) => !wanted.has(name));
    for (const name of leftovers) await removeAccount(name).catch(() => undefined);
    return leftovers;
  }

  /** The names of every instance user of this installation on the host. */
  instanceUserNames(): string[] {
    const prefix = hostNames.instanceUser(this.installation, '');
    return [...readPasswd().keys()].filter((name) => name.startsWith(prefix));
  }

  /**
   * Every account of the installation gone from the host: its instance
   * users, the database user and the instances group (an installation that
   * is removed; nothing of it may still run).
   */
  async removeAll(): Promise<void> {
    if (!this.isolated) return;
    for (const name of [...this.instanceUserNames(), hostNames.databaseUser(this.installation)]) await removeAccount(name);
    const group = hostNames.instancesGroup(this.installation);
    for (let attempt = 1; readGroups().has(group); attempt++) {
      try {
        await run('groupdel', [group]);
      } catch (err) {
        if (attempt >= LOCK_ATTEMPTS) throw new Error(`cannot remove group ${group}: ${String(err.stderr ?? err).trim()}`, { cause: err });
        await sleep(LOCK_RETRY_MS * (1 + Math.random()));
      }
    }
    this.group = null;
    this.database = null;
  }

  /** The gid of the installation's instances group, made on first use. */
  instancesGroup(): Promise<number> {
    this.group ??= (async () => {
      const name = hostNames.instancesGroup(this.installation);
      for (let attempt = 1; ; attempt++) {
        const gid = readGroups().get(name);
        if (gid !== undefined) return gid;
        try {
          await run('groupadd', ['--system', name]);
        } catch (err) {
          if (attempt >= LOCK_ATTEMPTS) throw new Error(`cannot create group ${name}: ${String(err.stderr ?? err).trim()}`, { cause: err });
          await sleep(LOCK_RETRY_MS * (1 + Math.random()));
        }
      }
    })();
    this.group.catch(() => (this.group = null));
    return this.group;
  }

  /** The database user if it exists already (null when not). */
  databaseUserNow(): RunAs | null {
    return this.isolated ? findUser(hostNames.databaseUser(this.installation)) : self();
  }

  /** The user every database server of the installation runs as, made on first use (with a group of its own). */
  databaseUser(): Promise<RunAs> {
    if (!this.isolated) return Promise.resolve(self());
    this.database ??= ensureAccount(hostNames.databaseUser(this.installation), (name) => ['useradd', ['--system', '--user-group', '-M', '-s', '/usr/sbin/nologin', name]]);
    this.database.catch(() => (this.database = null));
    return this.database;
  }
}

function self(): RunAs {
  return { uid: process.getuid!(), gid: process.getgid!(), name: '' };
}

/** The account from /etc/passwd (where useradd puts it), or null. */
export function findUser(name: string): RunAs | null {
  const found = readPasswd().get(name);
  return found ? { name, ...found } : null;
}

function readPasswd(): Map<string, { uid: number; gid: number }> {
  const users = new Map<string, { uid: number; gid: number }>();
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [name, , uid, gid] = line.split(':');
    if (name && uid !== undefined && gid !== undefined) users.set(name, { uid: Number(uid), gid: Number(gid) });
  }
  return users;
}

/** The group's gid from /etc/group (where groupadd puts it), or null; throws when the file cannot be read. */
export function findGroup(name: string): number | null {
  return readGroups().get(name) ?? null;
}

function readGroups(): Map<string, number> {
  const groups = new Map<string, number>();
  for (const line of readFileSync('/etc/group', 'utf8').split('\n')) {
    const [name, , gid] = line.split(':');
    if (name && gid !== undefined) groups.set(name, Number(gid));
  }
  return groups;
}

async function ensureAccount(name: string, command: (name: string) => [string, string[]]): Promise<RunAs> {
  for (let attempt = 1; ; attempt++) {
    const found = findUser(name);
    if (found) return found;
    const [bin, args] = command(name);
    try {
      await run(bin, args);
    } catch (err) {
      // Locked by another useradd, or made meanwhile by one (then found above).
      if (attempt >= LOCK_ATTEMPTS) throw new Error(`cannot create user ${name}: ${String(err.stderr ?? err).trim()}`, { cause: err });
      await sleep(LOCK_RETRY_MS * (1 + Math.random()));
    }
  }
}

async function removeAccount(name: string): Promise<void> {
  for (let attempt = 1; findUser(name); attempt++) {
    try {
      // -f: a process that died but is not reaped yet still counts as the user's for userdel.
      await run('userdel', ['-f', name]);
    } catch (err) {
      if (attempt >= LOCK_ATTEMPTS) throw new Error(`cannot remove user ${name}: ${String(err.stderr ?? err).trim()}`, { cause: err });
      await sleep(LOCK_RETRY_MS * (1 + Math.random()));
    }
  }
}
