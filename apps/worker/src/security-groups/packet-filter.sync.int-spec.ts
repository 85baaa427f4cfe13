import { ManagedDatabase, ManagedDatabaseLifecycle } from '@stratus/core';
import { FilterLayout, FilterMember, FilterSpec, HostAccounts, LocalHooks, PacketFilter } from '@stratus/providers';
import { postgresRequest, useWorkerOnFake } from '@stratus/testing';
import { execFileSync } from 'node:child_process';
import { WorkerModule } from '../worker.module';
import { PacketFilterSync } from './packet-filter.sync';

/** A packet filter whose whole loads can be held just before they reach nft. */
class HeldFilter extends PacketFilter {
  private hold: { reached: () => void; released: Promise<void> } | null = null;
  /** Called when an element is in the table. */
  onAdmitted: (() => void) | null = null;

  /** The next loads wait before nft until `release`; `reached` resolves when one waits. */
  holdLoads(): { reached: Promise<void>; release: () => void } {
    let reached!: () => void;
    let release!: () => void;
    const arrived = new Promise<void>((resolve) => (reached = resolve));
    const hold = { reached, released: new Promise<void>((resolve) => (release = resolve)) };
    this.hold = hold;
    return {
      reached: arrived,
      release: () => {
        if (this.hold === hold) this.hold = null;
        release();
      },
    };
  }

  override async apply(spec: Omit<FilterSpec, 'table'>) {
    const hold = this.hold;
    if (hold) {
      hold.reached();
      await hold.released;
    }
    return super.apply(spec);
  }

  override async admit(member: FilterMember, layout: FilterLayout) {
    const status = await super.admit(member, layout);
    this.onAdmitted?.();
    return status;
  }
}

// Loads real tables: needs root and nft, as the worker does.
const asRoot = process.getuid?.() === 0 ? describe : describe.skip;

/*
 * PacketFilterSync over a real nft table of its own, its rows from a
 * worker on the fake provider (which makes the rows; the fake provider has
 * no packet filter of its own).
 */
asRoot('packet filter sync', () => {
  const w = useWorkerOnFake('packet-filter-sync', (config) => WorkerModule.register(config));
  const filter = new HeldFilter(`stratus_sync_test_${process.env.STRATUS_TEST_SLOT ?? 0}`);
  const members = () => execFileSync('nft', ['list', 'map', 'inet', filter.table, 'members'], { encoding: 'utf8' });
  let sync: PacketFilterSync;

  async function ready(name: string): Promise<ManagedDatabase> {
    const { row } = await w.get(ManagedDatabaseLifecycle).create('postgres', postgresRequest(name), w.principal);
    await w.drained();
    return w.db.getRepository(ManagedDatabase).findOneByOrFail({ id: row.id, status: 'ready' });
  }

  beforeAll(() => {
    const hooks = { packetFilter: filter, accounts: { isolated: false } as HostAccounts, databasePeers: () => [] };
    sync = new PacketFilterSync(w.db, w.config, hooks as unknown as LocalHooks);
  });

  afterAll(async () => {
    await filter.remove();
  });

  it('an address admitted while a load that read the rows before it is on its way stays in the table', async () => {
    const first = await ready('first');
    await sync.loaded();
    expect(members()).toContain(`${first.address} : jump ingress_`);

    // A load reads the rows and is held before nft; then a new server's row is written and its address admitted.
    const held = filter.holdLoads();
    const stale = sync.sync();
    await held.reached;
    const second = await ready('second');
    const admitted = new Promise<void>((resolve) => (filter.onAdmitted = resolve));
    const admitting = sync.admit({ key: 'second', address: second.address!, uid: null, groupIds: second.securityGroupIds });
    // Where the element goes in at once, the stale load must land after it for the check below to mean
    // something; where admit waits for the load, it waits here in vain and the load is let go after 2 s.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([admitted, new Promise((resolve) => (timer = setTimeout(resolve, 2_000)))]);
    clearTimeout(timer);
    // Every later load waits from here on: what the table holds is what these two left.
    const later = filter.holdLoads();
    held.release();
    await stale;
    await admitting;
    try {
      expect(members()).toContain(`${second.address} : jump ingress_`);
      expect(members()).toContain(`${first.address} : jump ingress_`);
    } finally {
      later.release();
      await sync.sync();
    }
    expect(members()).toContain(`${second.address} : jump ingress_`);
  });
});
