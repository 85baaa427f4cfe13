import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The limiter of one installation: its groups live under `stratus-<installation>` in each controller. */
export function installationCgroups(installation: string, root = '/sys/fs/cgroup'): CgroupLimiter {
  return new CgroupLimiter(root, `stratus-${installation}`);
}

export interface Limits {
  vcpus: number;
  ramMb: number;
}

const PERIOD_US = 100_000;
const PIDS_MAX = 512;

/**
 * Holds an instance's processes to its flavor with cgroup v1 controllers
 * (cpu quota, memory limit, pid count). Where the host does not let us write
 * cgroups, `reason` says why and nothing is enforced.
 */
export class CgroupLimiter {
  readonly reason: string | null;

  constructor(
    private readonly root = '/sys/fs/cgroup',
    private readonly parent = 'stratus',
  ) {
    this.reason = this.probe();
  }

  get enforced(): boolean {
    return this.reason === null;
  }

  describe(limits: Limits): string {
    return this.enforced ? `enforced: cgroup v1, ${limits.vcpus} vcpu, ${limits.ramMb} MB` : `not enforced: ${this.reason}`;
  }

  /** Creates the instance's groups; returns the cgroup.procs files a process must join. */
  prepare(id: string, limits: Limits): string[] {
    if (!this.enforced) return [];
    const cpu = this.dir('cpu', id);
    const memory = this.dir('memory', id);
    const pids = this.dir('pids', id);
    // Accounting only, where the host has the controller (it may share its folder with cpu: then it is the same group).
    const cpuacct = this.hasController('cpuacct') ? [this.dir('cpuacct', id)] : [];
    for (const d of [cpu, memory, pids, ...cpuacct]) mkdirSync(d, { recursive: true });
    writeFileSync(join(cpu, 'cpu.cfs_period_us'), String(PERIOD_US));
    writeFileSync(join(cpu, 'cpu.cfs_quota_us'), String(limits.vcpus * PERIOD_US));
    writeFileSync(join(memory, 'memory.limit_in_bytes'), String(limits.ramMb * 1024 * 1024));
    writeFileSync(join(pids, 'pids.max'), String(PIDS_MAX));
    return [...new Set([cpu, memory, pids, ...cpuacct].map((d) => join(d, 'cgroup.procs')))];
  }

  /**
   * CPU seconds the instance's group used since it was made (cpuacct.usage,
   * in nanoseconds: every process that ever ran in it, grandchildren and
   * daemons included); null when it has no accounting group with a member
   * (not enforced here, or an instance booted before groups were accounted).
   */
  cpuSeconds(id: string): number | null {
    if (!this.enforced || !this.hasController('cpuacct')) return null;
    const dir = this.dir('cpuacct', id);
    try {
      if (readFileSync(join(dir, 'cgroup.procs'), 'utf8').trim() === '') return null;
      return Number(readFileSync(join(dir, 'cpuacct.usage'), 'utf8').trim()) / 1e9;
    } catch {
      return null;
    }
  }

  /** Every pid in the instance's cpu group (the whole instance, grandchildren included). */
  members(id: string): number[] {
    if (!this.enforced) return [];
    try {
      return readFileSync(join(this.dir('cpu', id), 'cgroup.procs'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map(Number);
    } catch {
      return [];
    }
  }

  remove(id: string): void {
    for (const controller of ['cpu', 'memory', 'pids', 'cpuacct']) {
      const d = this.dir(controller, id);
      try {
        if (existsSync(d)) rmdirSync(d);
      } catch {
        // Still has members that are exiting; the next delete attempt removes it.
      }
    }
  }

  /** The parent group of every instance, once their groups are gone (an installation that is removed). */
  removeParent(): void {
    for (const controller of ['cpu', 'memory', 'pids', 'cpuacct']) {
      try {
        rmdirSync(join(this.root, controller, this.parent));
      } catch {
        // not there, or an instance's group is still in it
      }
    }
  }

  private hasController(controller: string): boolean {
    return existsSync(join(this.root, controller, 'cgroup.procs'));
  }

  private dir(controller: string, id: string): string {
    return join(this.root, controller, this.parent, id);
  }

  private probe(): string | null {
    if (process.platform !== 'linux') return 'not Linux';
    if (process.getuid?.() !== 0) return 'control plane is not running as root';
    for (const controller of ['cpu', 'memory', 'pids']) {
      const d = join(this.root, controller);
      if (!existsSync(join(d, 'cgroup.procs'))) return `no cgroup v1 ${controller} controller at ${d}`;
      try {
        mkdirSync(join(d, this.parent), { recursive: true });
      } catch (err) {
        return `cannot create cgroups under ${d}: ${err.code ?? err}`;
      }
    }
    return null;
  }
}
