import { hostname } from 'node:os';
import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, chownSync, closeSync, cpSync, existsSync, fchmodSync, lstatSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ComputeDriver, CpuUsage, InstanceSpec, ObservedInstance, SnapshotImage, SnapshotSpec } from '../compute.driver';
import { DriverError } from '../driver-error';
import { CgroupLimiter } from './cgroups';
import { canConnect } from './listeners';
import { chownTree } from './file-ownership';
import { LocalImage, LocalImages } from './local-images';
import { isSnapshotId, LocalSnapshot } from './local-snapshots';
import { HostAccounts, RunAs } from './host-accounts';
import { cpuSecondsByOwner, INSTANCE_MARKER, isAlive, markerValue, processesOf, processUid, readStat, scanInstanceLeaders } from './process-table';

export interface LocalComputeOptions {
  instancesDir: string;
  accounts: HostAccounts;
  limiter: CgroupLimiter;
  images: LocalImages;
  bootTimeoutMs: number;
}

/** The local observation: the instance's process group leader too. */
export interface LocalObservedInstance extends ObservedInstance {
  pid: number | null;
}

/** What the control folder keeps of the last boot: enough to tell readiness and the boot timeout later. */
interface BootRecord {
  imageId: string;
  /** What the image ran and when it was ready, kept here: a snapshot image may be deleted while its instances run. */
  start?: string;
  readiness?: LocalImage['readiness'];
  address: string;
  port: number;
  startedAt: number;
}

const STOP_GRACE_MS = 5_000;
const POLL_MS = 50;
const BIND_LOW_PORTS = '--inh-caps=+net_bind_service --ambient-caps=+net_bind_service';
/** No setuid or setgid program gives an instance's process another uid or gid (the packet filter knows instances by theirs). */
const NO_NEW_PRIVILEGES = '--no-new-privs';

/**
 * Instances as supervised process groups, each as a user of its own (made
 * at create, removed at delete; HostAccounts). Each instance has a control
 * folder (`<instancesDir>/<id>`: boot script, console log, pid file), root's,
 * that others can pass through but not list, and a home inside it that only
 * the instance's user can enter. The process group leader carries
 * STRATUS_INSTANCE_ID (`<installation>/<id>`) in its environment, so the
 * process table itself tells which instances run, even when a worker died
 * before writing a pid file; one is taken for the instance only when it runs
 * as the instance's user (anyone can forge an environment).
 */
export class LocalComputeDriver implements ComputeDriver {
  private readonly exitListeners: Array<(id: string) => void> = [];
  private readonly exitCodes = new Map<string, string>();

  constructor(private readonly opts: LocalComputeOptions) {
    // Instances pass through to their own home; listing it would tell them every other instance's id.
    mkdirSync(opts.instancesDir, { recursive: true, mode: 0o711 });
    chmodSync(opts.instancesDir, 0o711);
    if (opts.accounts.isolated) assertSearchable(opts.instancesDir);
  }

  /** Local only (LocalHooks): called when an instance process this worker started exits. */
  onExit(listener: (id: string) => void): void {
    this.exitListeners.push(listener);
  }

  async observe(id: string): Promise<LocalObservedInstance | null> {
    const fromPidFile = this.pidFromFile(id);
    if (fromPidFile !== null) return await this.observed(id, fromPidFile);
    return (await this.observeAll([id])).get(id) ?? null;
  }

  async observeAll(ids: string[]): Promise<Map<string, LocalObservedInstance>> {
    const leaders = scanInstanceLeaders(this.opts.accounts.installation);
    const result = new Map<string, LocalObservedInstance>();
    // Readiness probes (a connect each, for instances still booting) run side by side.
    await Promise.all(
      ids.map(async (id) => {
        const leader = leaders.get(id)?.find((l) => this.runsAsInstance(id, l.pid));
        if (leader) {
          this.writePidFile(id, leader.pid, leader.startTime);
          result.set(id, await this.observed(id, leader.pid));
        } else if (existsSync(this.controlDir(id))) {
          result.set(id, await this.observed(id, null));
        }
      }),
    );
    return result;
  }

  /**
   * Non-blocking: lays out and starts the boot when nothing of the instance
   * runs, and otherwise says how far its boot got. A boot whose process
   * exited before it was ever ready is a terminal error (its control folder
   * and console log are kept for the operator); one not ready within
   * bootTimeoutMs is removed, then a terminal error.
   */
  async create(spec: InstanceSpec): Promise<LocalObservedInstance> {
    const image = this.opts.images.get(spec.imageId);
    if (!image) throw new DriverError('invalid', `image ${spec.imageId} does not exist on this provider`);
    const existing = await this.observe(spec.id);
    if (existing?.running) {
      if (existing.ready) return existing;
      const boot = this.bootRecord(spec.id);
      if (boot && Date.now() - boot.startedAt > this.opts.bootTimeoutMs) {
        const output = this.tail(spec.id);
        await this.delete(spec.id);
        throw new DriverError('invalid', `boot failed: not ready within ${this.opts.bootTimeoutMs} ms; last output: ${output}`);
      }
      return existing;
    }
    // Its boot started and its process is gone without ever being ready: the boot failed. A record
    // with no pid file is a worker that died between the two: nothing was spawned, so it boots afresh.
    if (this.bootRecord(spec.id) && !existsSync(this.bootedFile(spec.id)) && existsSync(join(this.controlDir(spec.id), 'pid'))) {
      // Let the exit event deliver the code when the process was ours.
      if (!this.exitCodes.has(spec.id)) await sleep(POLL_MS);
      const how = this.exitCodes.get(spec.id) ?? 'an unknown status';
      throw new DriverError('invalid', `boot failed: exited with ${how}; last output: ${this.tail(spec.id)}`);
    }
    // The folder before the user: a sweep of leftover users spares the users of folders it sees.
    mkdirSync(this.controlDir(spec.id), { recursive: true, mode: 0o711 });
    const user = await this.opts.accounts.ensureInstanceUser(spec.id);
    this.layOut(spec, image, user);
    const pid = this.boot(spec, image, user);
    return { running: true, ready: false, pid, limits: this.opts.limiter.describe(this.limitsOf(spec.id)), host: hostname() };
  }

  async delete(id: string): Promise<void> {
    const pids = new Set<number>(this.opts.limiter.members(id));
    const observed = await this.observe(id);
    if (observed?.pid) pids.add(observed.pid);
    if (pids.size > 0) {
      this.signal(pids, 'SIGTERM');
      const deadline = Date.now() + STOP_GRACE_MS;
      while ([...pids].some((p) => isAlive(readStat(p))) && Date.now() < deadline) await sleep(POLL_MS);
      this.signal(pids, 'SIGKILL');
      for (const p of this.opts.limiter.members(id)) pids.add(p);
      this.signal(pids, 'SIGKILL');
    }
    await this.killEverythingOf(id);
    this.opts.limiter.remove(id);
    rmSync(this.controlDir(id), { recursive: true, force: true });
    await this.opts.accounts.removeInstanceUser(id);
    await this.opts.accounts.removeLeftoverInstanceUsers(this.opts.instancesDir);
  }

  /**
   * From the instance's cgroup where it has one (everything that ever ran in
   * it); else from /proc, one sweep for every id: the processes of the
   * instance's own user (daemons that left its process group included), or,
   * where instances do not have users of their own, of its process group.
   * Only what the kernel counts of those processes is read, as root; nothing
   * of the instance's files.
   */
  async usage(ids: string[]): Promise<Map<string, CpuUsage>> {
    const result = new Map<string, CpuUsage>();
    const leaders = scanInstanceLeaders(this.opts.accounts.installation);
    const running = ids.filter((id) => leaders.get(id)?.some((l) => this.runsAsInstance(id, l.pid)));
    const fromProc: string[] = [];
    for (const id of running) {
      const seconds = this.opts.limiter.cpuSeconds(id);
      if (seconds === null) fromProc.push(id);
      else result.set(id, { cpuSeconds: seconds, at: Date.now() });
    }
    if (fromProc.length === 0) return result;
    const byUid = new Map<number, string>();
    const byGroup = new Map<number, string>();
    for (const id of fromProc) {
      const user = this.opts.accounts.isolated ? this.opts.accounts.instanceUser(id) : null;
      if (user) byUid.set(user.uid, id);
      else for (const leader of leaders.get(id) ?? []) byGroup.set(leader.pid, id);
    }
    const seconds = cpuSecondsByOwner((stat, uid) => byUid.get(uid) ?? byGroup.get(stat.pgrp) ?? null);
    const at = Date.now();
    for (const id of fromProc) result.set(id, { cpuSeconds: seconds.get(id) ?? 0, at });
    return result;
  }

  /**
   * A copy of the instance's home as its user can read it, without the
   * platform's `.stratus` folder, plus the start command and readiness of
   * the image it booted from (LocalSnapshots.make says how the copy is kept
   * from reading or carrying what it must not).
   */
  async snapshot(spec: SnapshotSpec): Promise<SnapshotImage> {
    const snapshots = this.opts.images.snapshots;
    if (!snapshots) throw new DriverError('invalid', 'snapshots are not set up on this provider');
    if (!isSnapshotId(spec.id) || this.opts.images.isBuiltIn(spec.id)) {
      throw new DriverError('invalid', `snapshot id ${JSON.stringify(spec.id)} is not 3 to 63 lowercase letters, digits and hyphens, or names an image`);
    }
    const existing = snapshots.get(spec.id);
    if (existing) {
      if (existing.sourceInstanceId === spec.instanceId && existing.projectId === spec.projectId) return snapshotImage(existing);
      throw new DriverError('invalid', `snapshot id ${spec.id} is taken by another image`);
    }
    if (!existsSync(join(this.controlDir(spec.instanceId), 'laid-out'))) throw new DriverError('not_found', `instance ${spec.instanceId} does not exist on this provider`);
    const boot = this.bootRecord(spec.instanceId);
    const found = boot && this.opts.images.get(boot.imageId);
    const image = boot?.start && boot.readiness ? { name: found?.name ?? boot.imageId, start: boot.start, readiness: boot.readiness } : found;
    if (!image) throw new DriverError('invalid', `instance ${spec.instanceId} has no record of the image it booted from`);
    const user = this.opts.accounts.instanceUser(spec.instanceId);
    if (!user) throw new DriverError('not_found', `instance ${spec.instanceId} has no user on this host`);
    const made = await snapshots.make(spec.id, this.home(spec.instanceId), user, {
      name: spec.name,
      description: `snapshot of instance ${spec.instanceId} (from ${image.name})`,
      start: image.start,
      readiness: image.readiness,
      projectId: spec.projectId,
      sourceInstanceId: spec.instanceId,
      createdAt: new Date().toISOString(),
    });
    return snapshotImage(made);
  }

  async observeSnapshot(id: string): Promise<SnapshotImage | null> {
    const found = this.opts.images.snapshots?.get(id);
    return found ? snapshotImage(found) : null;
  }

  /** Instances booted from it have their own copy of its files: only the image goes. */
  async deleteSnapshot(id: string): Promise<void> {
    this.opts.images.snapshots?.remove(id);
  }

  /**
   * Whatever the instance's user still runs (a daemon that left the process
   * group, where no cgroup holds it): its user is its own, so every process
   * of that user is the instance's.
   */
  private async killEverythingOf(id: string): Promise<void> {
    const user = this.opts.accounts.isolated ? this.opts.accounts.instanceUser(id) : null;
    if (!user) return;
    const deadline = Date.now() + STOP_GRACE_MS;
    for (let left = processesOf(user.uid); left.length > 0 && Date.now() < deadline; left = processesOf(user.uid)) {
      this.signal(new Set(left), 'SIGKILL');
      await sleep(POLL_MS);
    }
  }

  /** The process runs as the instance's user (or is our own boot wrapper, still root before it drops). */
  private runsAsInstance(id: string, pid: number): boolean {
    const uid = processUid(pid);
    return uid !== null && (uid === process.getuid?.() || uid === this.opts.accounts.instanceUser(id)?.uid);
  }

  private async observed(id: string, pid: number | null): Promise<LocalObservedInstance> {
    const ready = pid !== null && (await this.isReady(id));
    return { running: pid !== null, ready, pid, limits: this.opts.limiter.describe(this.limitsOf(id)), host: hostname() };
  }

  private controlDir(id: string): string {
    return join(this.opts.instancesDir, id);
  }

  private home(id: string): string {
    return join(this.controlDir(id), 'home');
  }

  /**
   * First create only: the image's files become the instance's home, like a
   * root disk. A marker written last makes it all-or-nothing, so a worker that
   * died half-way leaves something the next attempt redoes, not a broken home.
   */
  private layOut(spec: InstanceSpec, image: LocalImage, user: RunAs): void {
    const home = this.home(spec.id);
    const done = join(this.controlDir(spec.id), 'laid-out');
    if (existsSync(done)) return;
    rmSync(home, { recursive: true, force: true });
    mkdirSync(this.controlDir(spec.id), { recursive: true, mode: 0o711 });
    // Links as they are: a relative one would otherwise be made to point into the image's folder.
    const manifest = join(image.dir, 'image.json');
    cpSync(image.dir, home, { recursive: true, verbatimSymlinks: true, filter: (src) => src !== manifest });
    mkdirSync(join(home, '.stratus'), { recursive: true, mode: 0o700 });
    if (spec.userData) writeFileSync(join(home, '.stratus', 'user-data'), spec.userData, { mode: 0o700 });
    writeFileSync(join(this.controlDir(spec.id), 'limits.json'), JSON.stringify(spec.flavor), { mode: 0o600 });
    chownTree(home, user);
    chmodSync(home, 0o700);
    writeFileSync(done, '');
  }

  /**
   * Before every boot: the control folder passable but not listable, the
   * home the instance's alone (a home laid out for an earlier user, before
   * instances had users of their own, is handed over whole).
   */
  private secure(id: string, user: RunAs): void {
    chmodSync(this.controlDir(id), 0o711);
    const home = this.home(id);
    if (user.name && lstatSync(home).uid !== user.uid) chownTree(home, user);
    chmodSync(home, 0o700);
  }

  /** Starts the boot script in a new session; returns the group leader's pid. */
  private boot(spec: InstanceSpec, image: LocalImage, runAs: RunAs): number {
    const dir = this.controlDir(spec.id);
    rmSync(this.bootedFile(spec.id), { force: true });
    // Written again once this boot's process exists: until then the record says "not spawned yet".
    rmSync(join(dir, 'pid'), { force: true });
    // Before the spawn: a worker that dies right after it leaves a boot that is still timed.
    const record: BootRecord = { imageId: image.id, start: image.start, readiness: image.readiness, address: spec.address, port: spec.port, startedAt: Date.now() };
    writeFileSync(this.bootFile(spec.id), JSON.stringify(record), { mode: 0o600 });
    this.secure(spec.id, runAs);
    // Readable by the instance alone; made anew, so nothing the instance did to the old one is kept.
    const bootScript = join(dir, 'boot.sh');
    rmSync(bootScript, { force: true });
    writeFileSync(bootScript, bootScriptFor(image), { mode: 0o500, flag: 'wx' });
    if (runAs.name) chownSync(bootScript, runAs.uid, runAs.gid);
    const joinGroups = this.opts.limiter.prepare(spec.id, spec.flavor);
    // Join the cgroups while still root, then drop to the instance's user in place
    // (setpriv execs, so the pid we hold stays the instance's own). Binding
    // ports below 1024 (80, 443, as the web group offers) is the one
    // privilege an instance keeps; it confines binds no more than for high
    // ports (any free local address), which docs/security.md says.
    const wrapper = [
      ...joinGroups.map((f) => `echo $$ > '${f}'`),
      runAs.name
        ? `exec setpriv --reuid=${runAs.uid} --regid=${runAs.gid} --clear-groups ${NO_NEW_PRIVILEGES} ${BIND_LOW_PORTS} -- /bin/sh '${bootScript}'`
        : `exec /bin/sh '${bootScript}'`,
    ].join(' && ');
    // The console may echo what user_data did: root's, for the operator only.
    const log = openSync(join(dir, 'console.log'), 'a', 0o600);
    let child: ChildProcess;
    try {
      fchmodSync(log, 0o600);
      child = spawn('/bin/sh', ['-c', wrapper], {
        cwd: this.home(spec.id),
        detached: true,
        stdio: ['ignore', log, log],
        env: {
          PATH: '/usr/local/bin:/usr/bin:/bin',
          LANG: 'C.UTF-8',
          HOME: this.home(spec.id),
          USER: runAs.name || process.env.USER || '',
          HOST: spec.address,
          PORT: String(spec.port),
          STRATUS_NODE: process.execPath,
          [INSTANCE_MARKER]: markerValue(this.opts.accounts.installation, spec.id),
        },
      });
    } finally {
      closeSync(log);
    }
    // Without a listener a failed spawn would crash the worker.
    child.on('error', () => undefined);
    if (child.pid === undefined) {
      // Nothing booted: the retry boots afresh rather than reading this as a failed boot.
      rmSync(this.bootFile(spec.id), { force: true });
      throw new DriverError('retryable', `could not start the boot process of ${spec.id}`);
    }
    const stat = readStat(child.pid);
    this.writePidFile(spec.id, child.pid, stat?.startTime ?? '0');
    this.exitCodes.delete(spec.id);
    child.on('exit', (code, signal) => {
      this.exitCodes.set(spec.id, signal ? `signal ${signal}` : `code ${code}`);
      for (const listener of this.exitListeners) listener(spec.id);
    });
    child.unref();
    return child.pid;
  }

  /** The control folder's record of the last boot: root's, so the instance cannot forge it. */
  private bootFile(id: string): string {
    return join(this.controlDir(id), 'boot.json');
  }

  /** Written once the last boot was seen ready; removed when a boot starts. */
  private bootedFile(id: string): string {
    return join(this.controlDir(id), 'booted');
  }

  private bootRecord(id: string): BootRecord | null {
    try {
      return JSON.parse(readFileSync(this.bootFile(id), 'utf8'));
    } catch {
      return null;
    }
  }

  /**
   * Whether the running instance has booted: once seen, remembered in the
   * control folder. An instance booted by a release that kept no boot record
   * ran its whole boot under a blocking create, so it is.
   */
  private async isReady(id: string): Promise<boolean> {
    if (existsSync(this.bootedFile(id))) return true;
    const boot = this.bootRecord(id);
    if (!boot) return true;
    const readiness = boot.readiness ?? this.opts.images.get(boot.imageId)?.readiness;
    const ready = readiness === 'port' ? await canConnect(boot.address, boot.port, 500) : existsSync(join(this.home(id), '.stratus', 'booted'));
    if (ready) writeFileSync(this.bootedFile(id), '', { mode: 0o600 });
    return ready;
  }

  private tail(id: string, chars = 400): string {
    try {
      const text = readFileSync(join(this.controlDir(id), 'console.log'), 'utf8').trim();
      return JSON.stringify(text.slice(-chars));
    } catch {
      return '(no output)';
    }
  }

  private pidFromFile(id: string): number | null {
    try {
      const [pid, startTime] = readFileSync(join(this.controlDir(id), 'pid'), 'utf8')
        .trim()
        .split(' ');
      const stat = readStat(Number(pid));
      return isAlive(stat) && stat.startTime === startTime && stat.pgrp === stat.pid ? stat.pid : null;
    } catch {
      return null;
    }
  }

  private writePidFile(id: string, pid: number, startTime: string): void {
    try {
      writeFileSync(join(this.controlDir(id), 'pid'), `${pid} ${startTime}\n`, { mode: 0o600 });
    } catch {
      // Control folder removed by a concurrent delete; nothing to record.
    }
  }

  private limitsOf(id: string): { vcpus: number; ramMb: number } {
    try {
      return JSON.parse(readFileSync(join(this.controlDir(id), 'limits.json'), 'utf8'));
    } catch {
      return { vcpus: 0, ramMb: 0 };
    }
  }

  private signal(pids: Set<number>, signal: NodeJS.Signals): void {
    for (const pid of pids) {
      for (const target of [-pid, pid]) {
        try {
          process.kill(target, signal);
        } catch {
          // Already gone, or not a group leader.
        }
      }
    }
  }
}

function snapshotImage(s: LocalSnapshot): SnapshotImage {
  return { id: s.id, name: s.name, description: s.description, projectId: s.projectId, sourceInstanceId: s.sourceInstanceId };
}

function bootScriptFor(image: LocalImage): string {
  return `#!/bin/sh
# Written by the local provider before every boot.
# Files an instance makes are its own: the instances of an installation share a group.
umask 077
cd "$HOME" || exit 71
rm -f .stratus/booted
if [ -f .stratus/user-data ] && [ ! -f .stratus/first-boot-done ]; then
  echo "[boot] running user_data"
  if [ "$(head -c 2 .stratus/user-data)" = '#!' ]; then ./.stratus/user-data; else /bin/sh .stratus/user-data; fi
  rc=$?
  if [ "$rc" -ne 0 ]; then echo "[boot] user_data failed with exit code $rc"; exit "$rc"; fi
  touch .stratus/first-boot-done
fi
touch .stratus/booted
echo ${shellQuote(`[boot] starting ${image.name}`)}
${image.start}
`;
}

/** One shell word, whatever it holds (a snapshot's name is its project's to choose). */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Instance users must be able to reach their home through every parent folder. */
function assertSearchable(dir: string): void {
  for (let d = dir; d !== dirname(d); d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) {
      throw new Error(`instances folder ${dir} is not reachable by instance users: ${d} is not searchable by others (chmod o+x)`);
    }
  }
}
