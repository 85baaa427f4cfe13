import { execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { createServer, Server } from 'node:net';
import { FilterMember, FilterRule, FilterSpec, PacketFilter, renderFilter } from './packet-filter';

type Outcome = 'open' | 'refused' | 'timeout';
interface Probe {
  host: string;
  port: number;
  /** Source address the client binds (any process may bind any 127.x). */
  from?: string;
}

/**
 * Connects to each target as a process of `uid`/`gid`, the way an instance's
 * processes would, and reports what happened to each.
 */
function probeAs(uid: number, gid: number, probes: Probe[]): Promise<Outcome[]> {
  const script = `
    const net = require('node:net');
    const probes = JSON.parse(process.argv[1]);
    Promise.all(probes.map((p) => new Promise((resolve) => {
      const s = net.connect({ host: p.host, port: p.port, localAddress: p.from });
      const done = (o) => { s.destroy(); resolve(o); };
      s.once('connect', () => done('open'));
      s.once('error', (e) => done(e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET' ? 'refused' : 'error ' + e.code));
      s.setTimeout(3000, () => done('timeout'));
    }))).then((r) => process.stdout.write(JSON.stringify(r)));`;
  return new Promise((resolve, reject) => {
    const child = spawn('setpriv', [`--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--', process.execPath, '-e', script, JSON.stringify(probes)]);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`probe exited ${code}: ${err}`))));
  });
}

function listen(host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => {
      socket.on('error', () => undefined); // clients hang up at once
      socket.end('hi\n');
    });
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => resolve(server));
  });
}

const tables = () => execFileSync('nft', ['list', 'tables'], { encoding: 'utf8' });

const GROUPS: Record<string, FilterRule[]> = {
  'sg-default': [
    { direction: 'egress', protocol: 'all' },
    { direction: 'ingress', protocol: 'all' },
  ],
  'sg-web': [
    { direction: 'ingress', protocol: 'tcp', port: 80, cidr: '0.0.0.0/0' },
    { direction: 'ingress', protocol: 'tcp', port: 443, cidr: '0.0.0.0/0' },
  ],
  'sg-peers': [{ direction: 'ingress', protocol: 'tcp', port: 5000, remote_group_id: 'sg-peers' }],
  'sg-out': [{ direction: 'egress', protocol: 'all' }],
};

describe('renderFilter', () => {
  const base: FilterSpec = {
    table: 'stratus_render',
    pool: '127.77.0.0/16',
    instancesGid: 2990000,
    controlPlaneUids: [0],
    members: [],
    groups: GROUPS,
    publicEndpoints: [],
  };

  it('leaves out malformed rules (they grant nothing) and says so', () => {
    const { text, skipped } = renderFilter({
      ...base,
      groups: {
        bad: [
          { direction: 'ingress', protocol: 'tcp', port: 70000 },
          { direction: 'ingress', protocol: 'tcp', port: 22, cidr: 'nope' },
        ],
      },
      members: [{ key: 'i-1', address: '127.77.0.9', uid: 2000001, groupIds: ['bad'] }],
    });
    expect(skipped).toHaveLength(2);
    expect(text).not.toContain('70000');
    expect(text).not.toContain('dport 22');
  });

  it('does not take a uid shared by two instances, or the control plane, for an identity', () => {
    const { text, skipped } = renderFilter({
      ...base,
      members: [
        { key: 'i-1', address: '127.77.0.1', uid: 2000001, groupIds: [] },
        { key: 'i-2', address: '127.77.0.2', uid: 2000001, groupIds: [] },
        { key: 'i-3', address: '127.77.0.3', uid: 0, groupIds: [] },
      ],
    });
    expect(skipped).toHaveLength(3);
    // No uid has egress rules of its own: the map of them is empty.
    expect(text).toMatch(/map egress \{\n\s+type uid : verdict\n\s+\}/);
  });
});

// Loads real tables: needs root and nft, as the worker does.
const asRoot = process.getuid?.() === 0 ? describe : describe.skip;

asRoot('PacketFilter on the real packet filter', () => {
  const filter = new PacketFilter(`stratus_spec_${randomBytes(4).toString('hex')}`);
  // A /24 of its own, out of every pool, one per test slot (two slots' suites may run this spec at once).
  const net = `127.250.${10 + Number(process.env.STRATUS_TEST_SLOT ?? 0)}`;
  const gid = 2_990_000 + randomInt(0, 9000);
  const uid = 2_990_000 + randomInt(0, 9000) * 10;
  const a = { key: 'a', address: `${net}.1`, uid: uid + 1, groupIds: ['sg-web'] };
  const b = { key: 'b', address: `${net}.2`, uid: uid + 2, groupIds: ['sg-default'] };
  const c = { key: 'c', address: `${net}.3`, uid: uid + 3, groupIds: ['sg-peers', 'sg-out'] };
  const d = { key: 'd', address: `${net}.4`, uid: uid + 4, groupIds: ['sg-peers'] };
  const db = { key: 'postgres-1', address: `${net}.5`, uid: null, groupIds: ['sg-web'] };
  const unknownUid = uid + 9; // an instance being built: in the group, not in the table yet
  const hostUser = uid + 8; // some other account of the host
  const servers: Server[] = [];
  let publicPort = 0;
  let privatePort = 0;

  const serverUser = uid + 7; // the database servers' user
  const apply = (members: FilterMember[]) =>
    filter.apply({
      pool: `${net}.0/24`,
      instancesGid: gid,
      confinedUids: [serverUser],
      controlPlaneUids: [0],
      members,
      groups: GROUPS,
      publicEndpoints: [{ address: '127.0.0.1', ports: { from: publicPort, to: publicPort } }],
    });

  beforeAll(async () => {
    for (const m of [a, b, c, d, db]) for (const port of [80, 3000, 5000]) servers.push(await listen(m.address, port));
    const pub = await listen('127.0.0.1', 0);
    const priv = await listen('127.0.0.1', 0);
    servers.push(pub, priv);
    publicPort = (pub.address() as { port: number }).port;
    privatePort = (priv.address() as { port: number }).port;
  });

  afterAll(async () => {
    await filter.remove();
    for (const s of servers) s.close();
  });

  it('loads the table: a web-only instance answers on 80 only, from instances and host alike; a change of groups applies at once', async () => {
    expect(await apply([a, b, c, d, db])).toMatchObject({ enforced: true, skipped: [] });
    expect(tables()).toContain(filter.table);

    // b is in default: egress anywhere, so only a's ingress decides.
    expect(
      await probeAs(
        b.uid,
        gid,
        [80, 3000, 5000].map((port) => ({ host: a.address, port })),
      ),
    ).toEqual(['open', 'refused', 'refused']);
    // A host account (no instance) is judged by its source address: 0.0.0.0/0 lets it in on 80 only.
    expect(
      await probeAs(
        hostUser,
        hostUser,
        [80, 3000].map((port) => ({ host: a.address, port })),
      ),
    ).toEqual(['open', 'refused']);
    // The control plane (root here) reaches every port: health probes, the edge.
    expect(await probeAs(0, 0, [{ host: a.address, port: 3000 }])).toEqual(['open']);

    // The same running listeners, a's groups now web and default: 3000 answers.
    expect(await apply([{ ...a, groupIds: ['sg-web', 'sg-default'] }, b, c, d, db])).toMatchObject({ enforced: true });
    expect(
      await probeAs(
        b.uid,
        gid,
        [80, 3000, 5000].map((port) => ({ host: a.address, port })),
      ),
    ).toEqual(['open', 'open', 'open']);

    // And back.
    await apply([a, b, c, d, db]);
    expect(await probeAs(b.uid, gid, [{ host: a.address, port: 3000 }])).toEqual(['refused']);
  });

  it('an instance opens only what its egress rules allow', async () => {
    await apply([a, b, c, d, db]);
    // a (web only) has no egress rule: not even b, whose default group lets everything in.
    expect(await probeAs(a.uid, gid, [{ host: b.address, port: 3000 }])).toEqual(['refused']);
    // b may, and reaches itself regardless.
    expect(
      await probeAs(b.uid, gid, [
        { host: b.address, port: 3000 },
        { host: a.address, port: 80 },
      ]),
    ).toEqual(['open', 'open']);
  });

  it('never lets an instance reach a local address outside the pool, but the public endpoints', async () => {
    await apply([a, b, c, d, db]);
    for (const who of [b.uid, unknownUid]) {
      expect(
        await probeAs(who, gid, [
          { host: '127.0.0.1', port: privatePort },
          { host: '127.0.0.1', port: publicPort },
        ]),
      ).toEqual(['refused', 'open']);
    }
    // Nor a database server's processes (a tenant with superuser runs programs as their user).
    expect(await probeAs(serverUser, serverUser, [{ host: '127.0.0.1', port: privatePort }])).toEqual(['refused']);
    // And it opens nothing in the pool, where it could choose a source address that passes for the network.
    expect(await probeAs(serverUser, serverUser, [{ host: b.address, port: 3000, from: `${net}.200` }])).toEqual(['refused']);
    // The host's own accounts are not instances: untouched.
    expect(await probeAs(hostUser, hostUser, [{ host: '127.0.0.1', port: privatePort }])).toEqual(['open']);
  });

  it('judges an instance by who it is, never by the source address it binds', async () => {
    // default's ingress is the network: an instance of it (b) gets in, the host account only from a pool address.
    const bRules = [{ ...b, groupIds: ['sg-default'] }];
    await apply([a, ...bRules, c, d, db]);
    expect(
      await probeAs(hostUser, hostUser, [
        { host: b.address, port: 3000 },
        { host: b.address, port: 3000, from: `${net}.200` },
      ]),
    ).toEqual(['refused', 'open']);
    // An instance not yet in the table may not pass for the network by binding a pool address.
    expect(await probeAs(unknownUid, gid, [{ host: b.address, port: 3000, from: c.address }])).toEqual(['refused']);
  });

  it('lets members of a group in where a rule names that group as the source', async () => {
    await apply([a, b, c, d, db]);
    // c is in peers (and may go out); d is in peers; b is not.
    expect(
      await probeAs(c.uid, gid, [
        { host: d.address, port: 5000 },
        { host: d.address, port: 3000 },
      ]),
    ).toEqual(['open', 'refused']);
    expect(
      await probeAs(b.uid, gid, [
        { host: d.address, port: 5000 },
        { host: d.address, port: 5000, from: c.address },
      ]),
    ).toEqual(['refused', 'refused']);
  });

  it("enforces a database server's groups and refuses unknown pool addresses", async () => {
    await apply([a, b, c, d, db]);
    expect(
      await probeAs(b.uid, gid, [
        { host: db.address, port: 80 },
        { host: db.address, port: 3000 },
        { host: `${net}.77`, port: 80 },
      ]),
    ).toEqual(['open', 'refused', 'refused']);
  });

  it('lets the servers open their peers (an ha database) and nothing else; private peers are closed to instances whatever their groups', async () => {
    // db's web group lets anyone in on 80; 80 is a private peer here (as Patroni's REST API is), 3000 a plain one.
    const peers = [
      { address: db.address, port: 80, private: true },
      { address: db.address, port: 3000, private: false },
    ];
    await filter.apply({
      pool: `${net}.0/24`,
      instancesGid: gid,
      confinedUids: [serverUser],
      controlPlaneUids: [0],
      members: [a, b, c, d, db],
      groups: GROUPS,
      publicEndpoints: [],
      serverPeers: peers,
    });
    try {
      expect(
        await probeAs(serverUser, serverUser, [
          { host: db.address, port: 80 },
          { host: db.address, port: 3000 },
          { host: db.address, port: 5000 },
          { host: b.address, port: 3000 },
        ]),
      ).toEqual(['open', 'open', 'refused', 'refused']);
      // An instance (b may go anywhere) is refused the private peer; a plain one follows db's groups (web: 80 only).
      expect(
        await probeAs(b.uid, gid, [
          { host: db.address, port: 80 },
          { host: db.address, port: 3000 },
        ]),
      ).toEqual(['refused', 'refused']);
      // The control plane reaches it (the balancer's health check).
      expect(await probeAs(0, 0, [{ host: db.address, port: 80 }])).toEqual(['open']);
    } finally {
      await apply([a, b, c, d, db]);
    }
    // Without the peers, the groups alone decide again.
    expect(await probeAs(b.uid, gid, [{ host: db.address, port: 80 }])).toEqual(['open']);
  });

  it('admits new members with elements alone: the table then judges every connection as a whole load with them would', async () => {
    // e: an instance in peers (a group a rule names as its peers) that may go out; f: an instance in web, whose rules name source ranges; g: a server in web.
    const e = { key: 'e', address: `${net}.6`, uid: uid + 5, groupIds: ['sg-peers', 'sg-out'] };
    const f = { key: 'f', address: `${net}.7`, uid: uid + 6, groupIds: ['sg-web'] };
    const g = { key: 'postgres-2', address: `${net}.8`, uid: null, groupIds: ['sg-web'] };
    for (const m of [e, f, g]) for (const port of [80, 3000, 5000]) servers.push(await listen(m.address, port));
    const targets = [a, b, c, d, db, e, f, g].flatMap((m) => [80, 3000, 5000].map((port) => ({ host: m.address, port })));
    const senders: Array<[number, number, string?]> = [
      ...[a, b, c, d, e, f].map((m): [number, number] => [m.uid, gid]),
      [unknownUid, gid],
      [hostUser, hostUser],
      [hostUser, hostUser, `${net}.200`],
    ];
    const everyConnection = async () => {
      const seen: Outcome[][] = [];
      for (const [who, group, from] of senders)
        seen.push(
          await probeAs(
            who,
            group,
            targets.map((t) => ({ ...t, from })),
          ),
        );
      return seen;
    };
    await apply([a, b, c, d, db, e, f, g]);
    const whole = await everyConnection();

    const loaded = await apply([a, b, c, d, db]);
    expect(await everyConnection()).not.toEqual(whole);
    for (const m of [e, f, g]) expect(await filter.admit(m, loaded.layout)).toEqual({ enforced: true });
    expect(await everyConnection()).toEqual(whole);

    // What cannot go in as elements is refused, the table untouched: a malformed address, groups the table has no chains for, the control plane's uid.
    await expect(filter.admit({ ...g, address: '127.0.0.1; flush ruleset' }, loaded.layout)).rejects.toThrow(/cannot admit/);
    await expect(filter.admit({ ...g, address: `${net}.9`, groupIds: ['sg-out'] }, loaded.layout)).rejects.toThrow(/cannot admit/);
    await expect(filter.admit({ ...e, address: `${net}.9`, uid: 0 }, loaded.layout)).rejects.toThrow(/cannot admit/);
    expect(await everyConnection()).toEqual(whole);
  });

  it('refuses pool addresses that would land on a wildcard listener', async () => {
    await apply([a, b, c, d, db]);
    const wildcard = await listen('0.0.0.0', 0);
    servers.push(wildcard);
    const port = (wildcard.address() as { port: number }).port;
    expect(
      await probeAs(0, 0, [
        { host: a.address, port },
        { host: '127.0.0.1', port },
      ]),
    ).toEqual(['refused', 'open']);
  });

  it("does not judge another installation's instance that got one of its uids again", async () => {
    await apply([a, b, c, d, db]);
    // a's uid, freed and handed to an instance of another installation (another group): a's lack of egress rules is not its.
    const otherGid = gid + 1;
    expect(await probeAs(a.uid, otherGid, [{ host: '127.0.0.1', port: privatePort }])).toEqual(['open']);
    // a itself still opens nothing.
    expect(await probeAs(a.uid, gid, [{ host: '127.0.0.1', port: privatePort }])).toEqual(['refused']);
  });

  it('removes the tables of installations that are gone, and no other', async () => {
    const gone = new PacketFilter(`${filter.table}_gone`);
    const alive = new PacketFilter(`${filter.table}_alive`);
    for (const other of [gone, alive]) await other.apply({ pool: `${net}.0/24`, instancesGid: null, controlPlaneUids: [0], members: [], groups: {}, publicEndpoints: [] });
    try {
      expect(await filter.removeOrphans((table) => table === gone.table)).toEqual([gone.table]);
      expect(tables()).not.toContain(gone.table);
      expect(tables()).toContain(alive.table);
    } finally {
      await gone.remove();
      await alive.remove();
    }
  });

  it('removes its table', async () => {
    await apply([a]);
    expect(tables()).toContain(filter.table);
    expect(await filter.remove()).toEqual({ enforced: true });
    expect(tables()).not.toContain(filter.table);
    expect(await filter.remove()).toEqual({ enforced: true });
  });
});
