import type { ProviderName } from '@stratus/core';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { BlockList } from 'node:net';
import { dirname, join } from 'node:path';
import { DataSource } from 'typeorm';
import { TESTBED_NETWORK } from './openstack-testbed';
import { providerUnderTest } from './provider-under-test';
import { testEnv } from './test-env';

/**
 * What the end-to-end suites take from the catalog of the provider they run
 * on, so one suite runs on every provider: the local and fake providers
 * offer the project's own catalog (fixed ids), the openstack provider the
 * testbed's, whose images, flavors and networks have the cloud's UUIDs.
 */
export interface CatalogFixtures {
  /** The image of the demo instance (on the local provider, a web server that answers with its id). */
  demoImage: string;
  /** The image of an instance that runs nothing but its user_data. */
  plainImage: string;
  /** The flavor the demo instance names (by name, as SPEC.md allows), and the id that name resolves to. */
  flavorName: string;
  flavorId: string;
  /** The resource limits an instance of that flavor reports (metadata.resourceLimits). */
  flavorLimits: RegExp;
  /** Another flavor (by name), for an update that moves members off flavorName. */
  otherFlavorName: string;
  /** The flavor a managed database names (by name or id): the project catalog has database flavors, the testbed only Nova's. */
  databaseFlavor: string;
  /** The network instances and database servers go on (its id), and the keypair they name. */
  network: string;
  keypair: string;
  /**
   * What makes a create fail to boot on this provider (fields of POST
   * /v1/instances over the demo ones), and what its status_reason then
   * contains; null where no create can (the fake provider's failures are
   * injected in its worker).
   */
  failedBoot: { fields: Record<string, string>; reasons: string[] } | null;
}

const PROJECT_CATALOG = {
  demoImage: 'demo-web',
  plainImage: 'plain',
  flavorName: 'm1.small',
  flavorId: 'f-small',
  otherFlavorName: 'm1.micro',
  databaseFlavor: 'db.small',
  network: 'private',
  keypair: 'default',
};

/** What the openstack table names; the ids behind the names are the testbed's (resolveTestbedFixtures). */
const TESTBED_NAMES = { image: 'debian-12', flavor: 'm1.small', network: TESTBED_NETWORK };

/**
 * The keypair the e2e suites name on the testbed: Nova's keypairs are the
 * user's, whom every test run shares, so each slot has its own.
 */
export function testbedKeypair(): string {
  return `stratus-e2e-${Number(process.env.STRATUS_TEST_SLOT ?? 0)}`;
}

/** Where the e2e-openstack global setup leaves the testbed's ids for the suites (read when they load, before any test). */
function resolvedFile(): string {
  return join(testEnv({}, 'openstack').DATA_DIR, 'catalog-fixtures.json');
}

type Resolved = Pick<CatalogFixtures, 'demoImage' | 'plainImage' | 'flavorId' | 'network'>;

/**
 * The testbed's ids for the names of the openstack table, read from the
 * catalog the installation mirrored from the cloud (what the api resolves
 * references against), and saved for the suites. Exactly one of each: two
 * images of one name would leave the suites guessing.
 */
export async function resolveTestbedFixtures(db: DataSource): Promise<void> {
  const one = async (what: string, sql: string, name: string): Promise<string> => {
    const rows: Array<{ id: string }> = await db.query(sql, [name]);
    if (rows.length !== 1) throw new Error(`the testbed's mirrored catalog has ${rows.length} ${what}s named ${name}, not one`);
    return rows[0].id;
  };
  const image = await one('image', 'SELECT id FROM images WHERE name = $1 AND project_id IS NULL', TESTBED_NAMES.image);
  const resolved: Resolved = {
    demoImage: image,
    plainImage: image,
    flavorId: await one('flavor', 'SELECT id FROM flavors WHERE name = $1', TESTBED_NAMES.flavor),
    network: await one('network', 'SELECT id FROM networks WHERE name = $1', TESTBED_NAMES.network),
  };
  mkdirSync(dirname(resolvedFile()), { recursive: true });
  writeFileSync(resolvedFile(), JSON.stringify(resolved));
}

let openstackFixtures: CatalogFixtures | undefined;

/** The catalog fixtures of the provider under test (providerUnderTest). */
export function catalogFixtures(provider: ProviderName = providerUnderTest()): CatalogFixtures {
  switch (provider) {
    case 'local':
      return {
        ...PROJECT_CATALOG,
        // cgroup v1 limits where the host has them; a host without says why not.
        flavorLimits: /^(enforced: cgroup v1, 1 vcpu, 512 MB|not enforced: .+)$/,
        failedBoot: { fields: { image_id: 'plain', user_data: 'echo about to fail\nexit 7\n' }, reasons: ['exited with code 7', 'about to fail'] },
      };
    case 'fake':
      return { ...PROJECT_CATALOG, flavorLimits: /^not enforced: fake provider \(1 vcpu, 512 MB\)$/, failedBoot: null };
    case 'openstack':
      openstackFixtures ??= {
        ...(JSON.parse(readFileSync(resolvedFile(), 'utf8')) as Resolved),
        flavorName: TESTBED_NAMES.flavor,
        otherFlavorName: 'm1.tiny',
        databaseFlavor: TESTBED_NAMES.flavor,
        // The testbed's m1.small (scripts/openstack-testbed/seed.py), as Nova reports it.
        flavorLimits: /^Nova flavor m1\.small: 1 vCPU, 2048 MiB$/,
        keypair: testbedKeypair(),
        // More memory than the testbed's fake hypervisor has: Nova puts the server in ERROR with its fault.
        failedBoot: { fields: { flavor_id: 'testbed.unschedulable' }, reasons: ['No valid host was found'] },
      };
      return openstackFixtures;
  }
}

/** The fixtures that are references (names or ids), which a create body names. */
type CatalogReference = { [K in keyof CatalogFixtures]: CatalogFixtures[K] extends string ? K : never }[keyof CatalogFixtures];

/**
 * Create-body fields that are catalog references, each read from
 * catalogFixtures() when the body is spread rather than when the suite's
 * module loads: the openstack provider's ids are known only once its
 * global setup resolved them.
 */
export function catalogReferences<F extends string>(fields: Record<F, CatalogReference>): { readonly [K in F]: string } {
  const body = {} as { [K in F]: string };
  for (const [field, fixture] of Object.entries(fields) as Array<[F, CatalogReference]>) {
    Object.defineProperty(body, field, { get: () => catalogFixtures()[fixture], enumerable: true });
  }
  return body;
}

/** Whether `address` is in the range of catalog network `networkId` (the local provider's pool, the testbed's tenant subnet). */
export async function inCatalogNetwork(db: DataSource, networkId: string, address: string): Promise<boolean> {
  const [{ cidr }] = await db.query(`SELECT cidr::text AS cidr FROM networks WHERE id = $1`, [networkId]);
  const [base, prefix] = String(cidr).split('/');
  const range = new BlockList();
  range.addSubnet(base, Number(prefix), 'ipv4');
  return range.check(address, 'ipv4');
}
