import { AddressInfo, createServer, Server } from 'node:net';
import { DatabaseServerSpec } from '../databases.driver';
import { OpenStackClient } from './openstack-client';
import { readyLine, VERIFIER_METADATA_KEY } from './openstack-database.cloud-init';
import { OpenStackDatabaseDriver } from './openstack-database.driver';
import { MARK, NovaServer } from './openstack-resources';

/**
 * Readiness with a data path (what a real cloud has and the testbed
 * cannot show): the engine must answer on the server's address and the
 * server's console must say it took the verifier in force. Nova is a stub
 * holding one ACTIVE server; a small listener on 127.0.0.1 answers PING as
 * Redis does.
 */
const OLD = 'a'.repeat(64);
const NEW = 'b'.repeat(64);

class NovaStub {
  console = '';
  constructor(readonly server: NovaServer) {}
  async get(_service: string, path: string): Promise<unknown> {
    if (path === '/servers/detail') return { servers: [this.server] };
    throw new Error(`unexpected GET ${path}`);
  }
  async post(_service: string, path: string, body: Record<string, unknown>): Promise<unknown> {
    if (path === `/servers/${this.server.id}/action` && 'os-getConsoleOutput' in body) return { output: this.console };
    throw new Error(`unexpected POST ${path}`);
  }
  async put(_service: string, path: string, body: { meta: Record<string, string> }): Promise<unknown> {
    if (!path.startsWith(`/servers/${this.server.id}/metadata/`)) throw new Error(`unexpected PUT ${path}`);
    this.server.metadata = { ...this.server.metadata, ...body.meta };
    return body;
  }
}

describe('openstack database readiness with a data path', () => {
  let redis: Server;
  let port: number;
  let answering = true;

  beforeAll(async () => {
    redis = createServer((socket) => socket.on('data', () => (answering ? socket.write('-NOAUTH Authentication required.\r\n') : socket.destroy())));
    await new Promise<void>((resolve) => redis.listen(0, '127.0.0.1', resolve));
    port = (redis.address() as AddressInfo).port;
  });
  afterAll(() => redis.close());

  function setUp(): { nova: NovaStub; driver: OpenStackDatabaseDriver; spec: DatabaseServerSpec } {
    const key = 'redis-41';
    const nova = new NovaStub({
      id: 'srv-1',
      name: MARK.name(key),
      status: 'ACTIVE',
      created: new Date().toISOString(),
      metadata: { [MARK.idKey]: key, [VERIFIER_METADATA_KEY]: OLD, stratus_endpoint: `127.0.0.1 ${port}` },
    });
    const driver = new OpenStackDatabaseDriver(nova as unknown as OpenStackClient, { image: 'debian-12', flavor: '', dataPath: true, bootTimeoutMs: 60_000 });
    const spec: DatabaseServerSpec = {
      key,
      engine: 'redis',
      version: '7',
      address: '127.0.0.1',
      port,
      dbName: null,
      dbUser: null,
      passwordVerifier: OLD,
      superuser: false,
      extensions: [],
      ha: false,
      memberAddresses: [],
    };
    return { nova, driver, spec };
  }

  it('is ready once the engine answers and the console says the verifier in force was applied', async () => {
    const { nova, driver, spec } = setUp();
    // Booted, cloud-init still installing: nothing on the console yet.
    expect(await driver.ensureRunning(spec)).toMatchObject({ running: true, ready: false });
    nova.console = `cloud-init: running\n${readyLine(OLD)}\n`;
    expect(await driver.ensureRunning(spec)).toEqual({ running: true, ready: true });
    expect(await driver.observe(spec.key)).toEqual({ running: true, ready: true });
    answering = false;
    try {
      expect(await driver.observe(spec.key)).toEqual({ running: true, ready: false });
    } finally {
      answering = true;
    }
  });

  it('after a reset, is ready only when the console says the new verifier was applied', async () => {
    const { nova, driver, spec } = setUp();
    nova.console = `${readyLine(OLD)}\n`;
    expect(await driver.ensureRunning(spec)).toMatchObject({ ready: true });
    const reset = { ...spec, passwordVerifier: NEW };
    expect(await driver.ensureRunning(reset)).toMatchObject({ running: true, ready: false });
    expect(nova.server.metadata?.[VERIFIER_METADATA_KEY]).toBe(NEW);
    expect(await driver.observe(spec.key)).toMatchObject({ ready: false });
    nova.console += `${readyLine(NEW)}\n`;
    expect(await driver.ensureRunning(reset)).toEqual({ running: true, ready: true });
    expect(await driver.observe(spec.key)).toEqual({ running: true, ready: true });
  });
});
