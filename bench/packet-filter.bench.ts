import { FilterMember, FilterRule, PacketFilter } from '@stratus/providers';
import { nearestRank } from './percentiles';

/**
 * What letting one new instance into the packet filter costs, the whole
 * table loaded again against one admission by elements, at several table
 * sizes, in the same run. The table is one of its own (root and nft, as the
 * worker), removed at the end; no process is started, no row read: the
 * database query a whole load also makes is not in these figures.
 */
const SIZES = (process.env.BENCH_MEMBERS ?? '100,1000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const UID = 3_900_000;

const GROUPS: Record<string, FilterRule[]> = {
  web: [
    { direction: 'ingress', protocol: 'tcp', port: 80, cidr: '0.0.0.0/0' },
    { direction: 'egress', protocol: 'all' },
  ],
  peers: [
    { direction: 'ingress', protocol: 'tcp', port: 5432, remote_group_id: 'peers' },
    { direction: 'egress', protocol: 'tcp', port: 443 },
  ],
  default: [
    { direction: 'ingress', protocol: 'all' },
    { direction: 'egress', protocol: 'all' },
  ],
};
const COMBOS = [['web'], ['peers'], ['default'], ['web', 'peers']];

function member(n: number): FilterMember {
  return { key: `i-${n}`, address: `127.210.${Math.floor(n / 250)}.${(n % 250) + 1}`, uid: UID + n, groupIds: COMBOS[n % COMBOS.length] };
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('needs root and nft, as the worker');
  const filter = new PacketFilter('stratus_bench_filter');
  const spec = (members: FilterMember[]) => ({ pool: '127.210.0.0/16', instancesGid: 3_999_999, controlPlaneUids: [0], members, groups: GROUPS, publicEndpoints: [] });
  const results = [];
  try {
    for (const size of SIZES) {
      const existing = Array.from({ length: size }, (_, n) => member(n));
      const whole: number[] = [];
      const admit: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const late = member(size + run);
        process.stderr.write(`${size} members, run ${run + 1}/${RUNS}\n`);
        // Before: the instance's ACTIVE waited for the table loaded with it.
        whole.push(await timed(() => filter.apply(spec([...existing, late]))));
        // Now: the table without it, then it goes in as elements.
        const loaded = await filter.apply(spec(existing));
        admit.push(await timed(() => filter.admit(late, loaded.layout)));
      }
      const [w, a] = [nearestRank(whole, 0.5), nearestRank(admit, 0.5)];
      results.push({ members: size, whole_load_p50_ms: +w.toFixed(1), admit_p50_ms: +a.toFixed(1), admit_over_whole: +(a / w).toFixed(3) });
    }
  } finally {
    await filter.remove();
  }
  process.stdout.write(JSON.stringify({ runs: RUNS, sizes: results }, null, 2) + '\n');
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
