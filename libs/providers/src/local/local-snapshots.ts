import { spawn } from 'node:child_process';
import { chmodSync, existsSync, lchownSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DriverError } from '../driver-error';
import { RunAs } from './host-accounts';
import type { LocalImage } from './local-images';

/** A snapshot image: a local image made of an instance's home, private to the project that made it. */
export interface LocalSnapshot extends LocalImage {
  projectId: string;
  sourceInstanceId: string;
  createdAt: string;
}

/** What a snapshot image keeps of where it came from (its image.json). */
type SnapshotManifest = Omit<LocalSnapshot, 'id' | 'dir'>;

/** Snapshot ids become folder names and image ids: lowercase, no dots, no slashes. */
const SNAPSHOT_ID = /^[a-z0-9][a-z0-9-]{2,62}$/;
/** Anything more of the copy than this is refused, not waited for. */
const COPY_TIMEOUT_MS = 10 * 60_000;

/** Whether `id` can name a snapshot (and so a folder under the snapshots folder). */
export function isSnapshotId(id: string): boolean {
  return SNAPSHOT_ID.test(id);
}

/**
 * Snapshot images on this machine, under `<dir>/<id>`: `image.json` and
 * `files/`, the copy of an instance's home. The folder is root's and no one
 * else's (0700): an instance never reads an image; the files reach a new
 * instance only by being copied into its home and given to its user.
 */
export class LocalSnapshots {
  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  }

  get(id: string): LocalSnapshot | null {
    if (!isSnapshotId(id)) return null;
    try {
      const manifest = JSON.parse(readFileSync(join(this.dir, id, 'image.json'), 'utf8')) as SnapshotManifest;
      return { ...manifest, id, dir: join(this.dir, id, 'files') };
    } catch {
      return null;
    }
  }

  /**
   * Copies `home` into a new snapshot image. The files are read by a tar
   * running as the instance's own user (`runAs`), so the copy holds only
   * what the instance itself can read, however its home's links point; a
   * tar running as root writes them into a folder only root can enter, and
   * then everything that is not a plain file, folder or link is dropped and
   * no file keeps a setuid, setgid or sticky bit. Left out: `.stratus` (the
   * platform's: the instance's user_data, boot markers) and the links
   * `volumes/<id>` to attached volumes (disks of their own, not the
   * instance's). Written to `<id>.partial` and renamed when whole.
   */
  async make(id: string, home: string, runAs: RunAs, manifest: SnapshotManifest): Promise<LocalSnapshot> {
    const partial = join(this.dir, `${id}.partial`);
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(join(partial, 'files'), { recursive: true, mode: 0o700 });
    await copyAs(runAs, home, join(partial, 'files'));
    scrub(join(partial, 'files'));
    rmSync(join(partial, 'files', '.stratus'), { recursive: true, force: true });
    dropVolumeLinks(join(partial, 'files', 'volumes'));
    chmodSync(join(partial, 'files'), 0o700);
    writeFileSync(join(partial, 'image.json'), JSON.stringify(manifest), { mode: 0o600 });
    try {
      renameSync(partial, join(this.dir, id));
    } catch (err) {
      // Made meanwhile by another call with the same id: that one stands.
      rmSync(partial, { recursive: true, force: true });
      if (!this.get(id)) throw err;
    }
    return this.get(id)!;
  }

  remove(id: string): void {
    if (!isSnapshotId(id)) return;
    rmSync(join(this.dir, `${id}.partial`), { recursive: true, force: true });
    rmSync(join(this.dir, id), { recursive: true, force: true });
  }
}

/** `tar -c` of `from` as `runAs`, piped into `tar -x` into `to` as root. */
async function copyAs(runAs: RunAs, from: string, to: string): Promise<void> {
  const as = runAs.name ? { uid: runAs.uid, gid: runAs.gid } : {};
  // The home's own files only: no other filesystem mounted inside it, nothing the reader may not read.
  const reader = spawn('tar', ['-C', from, '--one-file-system', '--ignore-failed-read', '--exclude=./.stratus', '-cf', '-', '.'], {
    ...as,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: COPY_TIMEOUT_MS,
  });
  // Owned by root, modes as they were; tar refuses names with `..` and leading `/` on its own.
  const writer = spawn('tar', ['-C', to, '--no-same-owner', '--no-acls', '--no-xattrs', '--no-selinux', '-xf', '-'], {
    stdio: ['pipe', 'ignore', 'pipe'],
    timeout: COPY_TIMEOUT_MS,
  });
  reader.stdout.pipe(writer.stdin);
  const errors = { reader: '', writer: '' };
  reader.stderr.on('data', (d: Buffer) => (errors.reader = (errors.reader + d.toString()).slice(-400)));
  writer.stderr.on('data', (d: Buffer) => (errors.writer = (errors.writer + d.toString()).slice(-400)));
  const exited = (p: typeof reader | typeof writer) =>
    new Promise<number | null>((resolve) => {
      p.on('error', () => resolve(-1));
      p.on('close', (code) => resolve(code));
    });
  const [readCode, writeCode] = await Promise.all([exited(reader), exited(writer)]);
  // 1 from the reader: a file changed while it was read (the instance runs): the copy is as of that moment.
  if ((readCode !== 0 && readCode !== 1) || writeCode !== 0) {
    throw new DriverError('retryable', `copying the instance's files failed (reader ${readCode}, writer ${writeCode}): ${(errors.reader + errors.writer).trim()}`);
  }
}

/**
 * Root's walk of a folder no one else can enter: whatever is not a plain
 * file, folder or link goes (a device node would hand its device to the
 * next instance), and no mode keeps setuid, setgid or sticky.
 */
function scrub(dir: string): void {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) {
      lchownSync(path, 0, 0);
    } else if (stat.isDirectory() || stat.isFile()) {
      lchownSync(path, 0, 0);
      if (stat.mode & 0o7000) chmodSync(path, stat.mode & 0o777);
      if (stat.isDirectory()) scrub(path);
    } else {
      rmSync(path, { force: true });
    }
  }
}

/** `volumes/<id>` links an attach made: the volume stays its own disk. */
function dropVolumeLinks(volumes: string): void {
  if (!existsSync(volumes) || !lstatSync(volumes).isDirectory()) return;
  for (const entry of readdirSync(volumes)) {
    if (lstatSync(join(volumes, entry)).isSymbolicLink()) rmSync(join(volumes, entry), { force: true });
  }
}
