import { execFile } from 'node:child_process';
import { chmodSync, chownSync, closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DriverError } from '../driver-error';
import { AttachedVolume, VolumeDriver, volumeMountpoint } from '../volume.driver';
import { HostAccounts, RunAs } from './host-accounts';

const run = promisify(execFile);
const GIB = 1024 ** 3;

export interface LocalVolumeOptions {
  volumesDir: string;
  instancesDir: string;
  accounts: HostAccounts;
}

/**
 * Volumes as files of the requested size under DATA_DIR/volumes/<id>
 * (`disk.img`, sparse). Where the host allows it (root, loop devices,
 * mkfs.ext4) the file holds an ext4 filesystem that is loop-mounted at
 * `<id>/mnt` while the volume is attached, so its size is a real limit;
 * otherwise `<id>/mnt` is a plain folder and the size is only reserved.
 * Attaching links `volumes/<id>` in the instance's home to the mount, so the
 * instance sees it in its working directory; deleting an instance removes
 * the link, never the volume's data. While attached, the volume (its root
 * and every file on it) belongs to the instance's user, and only that user
 * can enter it; detached, it is root's.
 */
export class LocalVolumeDriver implements VolumeDriver {
  readonly backing: string;
  private readonly loop: boolean;

  constructor(private readonly opts: LocalVolumeOptions) {
    // Passable (an instance follows its link to the mount), not listable.
    mkdirSync(opts.volumesDir, { recursive: true, mode: 0o711 });
    chmodSync(opts.volumesDir, 0o711);
    const why = loopUnavailable();
    this.loop = why === null;
    this.backing = this.loop ? 'ext4 image, loop-mounted while attached' : `folder beside a reserved image file (${why})`;
  }

  async exists(id: string): Promise<boolean> {
    return existsSync(join(this.dir(id), 'ready'));
  }

  async create(id: string, sizeGb: number): Promise<void> {
    const dir = this.dir(id);
    if (existsSync(join(dir, 'ready'))) return;
    mkdirSync(dir, { recursive: true, mode: 0o711 });
    const image = join(dir, 'disk.img');
    const fd = openSync(image, 'w', 0o600);
    try {
      ftruncateSync(fd, sizeGb * GIB);
    } finally {
      closeSync(fd);
    }
    const mnt = join(dir, 'mnt');
    mkdirSync(mnt, { recursive: true, mode: 0o700 });
    if (this.loop) {
      // Root's until an attach hands it to the instance's user.
      await this.exec('mkfs.ext4', ['-q', '-F', '-m', '0', '-E', `root_owner=${process.getuid!()}:${process.getgid!()},nodiscard,lazy_itable_init=1`, image]);
    }
    // Written last: a create cut short is redone from the start.
    writeFileSync(join(dir, 'ready'), String(sizeGb));
  }

  async attach(id: string, instanceId: string): Promise<AttachedVolume> {
    if (!(await this.exists(id))) throw new DriverError('not_found', `volume ${id} does not exist on this provider`);
    const control = join(this.opts.instancesDir, instanceId);
    // The instance's home is laid out by its first boot; until then there is nowhere to attach to.
    if (!existsSync(join(control, 'laid-out'))) throw new DriverError('retryable', `instance ${instanceId} is not laid out yet`);
    const mnt = join(this.dir(id), 'mnt');
    if (this.loop && !isMountpoint(mnt)) {
      await this.exec('mount', ['-o', 'loop,nosuid,nodev', join(this.dir(id), 'disk.img'), mnt]);
    }
    await this.handOver(mnt, this.user(instanceId));
    await this.link(id, instanceId);
    return { mountpoint: volumeMountpoint(id) };
  }

  async detach(id: string, instanceId: string | null): Promise<void> {
    const home = instanceId ? join(this.opts.instancesDir, instanceId, 'home') : null;
    // Gone with its instance's home: nothing to unlink, and nothing left to hold the volume.
    if (!home || !existsSync(home)) return this.unmount(id, 'lazily');
    // Whatever the instance made of its `volumes` folder (read-only, say), its own user can
    // undo; rm does not follow the link.
    const user = this.user(instanceId!);
    await this.asUser(user, 'sh', ['-c', 'chmod u+w -- "$1" 2>/dev/null; rm -rf -- "$2"', 'sh', join(home, 'volumes'), join(home, volumeMountpoint(id))]);
    try {
      await this.unmount(id, 'or refuse');
    } catch (err) {
      // Busy: the instance keeps the volume, link and all, as before the detach.
      await this.link(id, instanceId!).catch(() => undefined);
      throw err;
    }
    // A folder volume stays where it was: root's again, so the instance cannot reach it by its path.
    if (!this.loop) chmodSync(join(this.dir(id), 'mnt'), 0o700);
    if (!this.loop && user.name) chownSync(join(this.dir(id), 'mnt'), process.getuid!(), process.getgid!());
  }

  async delete(id: string): Promise<void> {
    await this.unmount(id, 'lazily');
    rmSync(this.dir(id), { recursive: true, force: true });
  }

  /** `volumes/<id>` in the instance's home, a link to the volume's mount. */
  private async link(id: string, instanceId: string): Promise<void> {
    const home = join(this.opts.instancesDir, instanceId, 'home');
    const user = this.user(instanceId);
    // The home is the instance's to change (it may have made `volumes` a link to anywhere):
    // the link is made as the instance's user, never by root following the instance's paths.
    await this.asUser(user, 'mkdir', ['-p', '-m', '755', '--', join(home, 'volumes')]);
    await this.asUser(user, 'ln', ['-sfn', '--', join(this.dir(id), 'mnt'), join(home, volumeMountpoint(id))]);
  }

  /**
   * The volume's root and every file on it to the instance's user (files a
   * former instance made were its user's), entered by that user alone.
   * chown -R changes links themselves and never follows them.
   */
  private async handOver(mnt: string, user: RunAs): Promise<void> {
    if (!user.name) return;
    const root = statSync(mnt);
    if (root.uid !== user.uid || root.gid !== user.gid) await this.exec('chown', ['-R', '-P', '-h', `${user.uid}:${user.gid}`, '--', mnt]);
    chmodSync(mnt, 0o700);
  }

  /** The user the instance runs as; an instance without one has not been created (yet). */
  private user(instanceId: string): RunAs {
    const user = this.opts.accounts.instanceUser(instanceId);
    if (!user) throw new DriverError('retryable', `instance ${instanceId} has no user yet`);
    return user;
  }

  /**
   * When a process still has a file open on the volume: `lazily` detaches
   * the mount from the tree now and the kernel finishes when the last file
   * closes (its instance is gone); `or refuse` leaves it mounted and says
   * so (its instance runs: it would keep writing to a volume attached
   * elsewhere next).
   */
  private async unmount(id: string, busy: 'lazily' | 'or refuse'): Promise<void> {
    const mnt = join(this.dir(id), 'mnt');
    if (!this.loop || !isMountpoint(mnt)) return;
    try {
      await this.exec('umount', [mnt]);
    } catch {
      if (busy === 'or refuse') {
        throw new DriverError('invalid', `volume ${id} is busy: a process of its instance has a file open on it; close it (or stop the process) and detach again`);
      }
      await this.exec('umount', ['-l', mnt]);
    }
  }

  private dir(id: string): string {
    if (!/^[0-9a-f-]{36}$/.test(id)) throw new DriverError('invalid', `bad volume id ${id}`);
    return join(this.opts.volumesDir, id);
  }

  /**
   * A command inside an instance's home, with the rights the instance's own
   * processes have. Refused, it is the instance's doing (its home is its
   * own): not worth retrying.
   */
  private async asUser({ name, uid, gid }: RunAs, cmd: string, args: string[]): Promise<void> {
    try {
      await this.exec(cmd, args, name ? { uid, gid } : {});
    } catch (err) {
      throw new DriverError('invalid', `the instance's home refused it: ${err.message}`);
    }
  }

  private async exec(cmd: string, args: string[], as: { uid?: number; gid?: number } = {}): Promise<void> {
    try {
      await run(cmd, args, { timeout: 60_000, ...as });
    } catch (err) {
      throw new DriverError(
        'retryable',
        `${cmd} failed: ${String(err.stderr || err.message)
          .trim()
          .slice(0, 300)}`,
      );
    }
  }
}

/** Mount points of this mount namespace (field 5 of mountinfo, octal escapes undone). */
export function mountpoints(): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' ')[4].replace(/\\([0-7]{3})/g, (_, o) => String.fromCharCode(parseInt(o, 8))));
}

function isMountpoint(path: string): boolean {
  return mountpoints().includes(path);
}

function loopUnavailable(): string | null {
  if (process.platform !== 'linux') return 'not Linux';
  if (process.getuid?.() !== 0) return 'not running as root';
  if (!existsSync('/dev/loop-control')) return 'no loop devices';
  for (const bin of ['/usr/sbin/mkfs.ext4', '/sbin/mkfs.ext4']) if (existsSync(bin)) return null;
  return 'mkfs.ext4 not installed';
}
