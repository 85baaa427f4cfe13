import { DatabaseServerSpec } from '../../databases.driver';
import { clickhouseHaPeers, INTERSERVER_PORT, memberConfig, NATIVE_PORT_BASE, ZOOKEEPER_PORT } from './clickhouse-ha';

const spec: DatabaseServerSpec = {
  key: 'clickhouse-7',
  engine: 'clickhouse',
  version: null,
  address: '127.84.0.10',
  port: 8123,
  dbName: 'analytics',
  dbUser: 'appuser',
  passwordVerifier: 'ab'.repeat(32),
  superuser: false,
  extensions: [],
  ha: true,
  memberAddresses: ['127.84.0.11', '127.84.0.12', '127.84.0.13'],
};
const secrets = { interserverPassword: 'inter-secret', zookeeperPassword: 'zk-secret' };

describe('memberConfig', () => {
  const config = memberConfig(spec, 1, '/srv/m1/data', '/srv/m1/users.xml', secrets);

  it('listens on its own address only, with a native port that tells it apart in the cluster', () => {
    expect(config.match(/<listen_host>([^<]+)<\/listen_host>/g)).toEqual(['<listen_host>127.84.0.12</listen_host>']);
    expect(config).toContain(`<tcp_port>${NATIVE_PORT_BASE + 1}</tcp_port>`);
    expect(config).toContain(`<interserver_http_host>127.84.0.12</interserver_http_host>`);
    expect(config).toContain(`<interserver_http_port>${INTERSERVER_PORT}</interserver_http_port>`);
  });

  it('names the three members in one shard as 127.0.0.1 and their native ports, and itself in the macros', () => {
    const replicas = [...config.matchAll(/<replica><host>([^<]+)<\/host><port>(\d+)<\/port><\/replica>/g)].map((m) => `${m[1]}:${m[2]}`);
    expect(replicas).toEqual([`127.0.0.1:${NATIVE_PORT_BASE}`, `127.0.0.1:${NATIVE_PORT_BASE + 1}`, `127.0.0.1:${NATIVE_PORT_BASE + 2}`]);
    expect(config.match(/<internal_replication>true<\/internal_replication>/g)).toHaveLength(1);
    expect(config).toContain('<macros><cluster>stratus</cluster><shard>1</shard><replica>member-1</replica></macros>');
  });

  it("coordinates through the database's own ZooKeeper, with its identity, and holds no app password", () => {
    expect(config).toContain(`<node><host>127.84.0.10</host><port>${ZOOKEEPER_PORT}</port></node>`);
    expect(config).toContain('<identity>replica:zk-secret</identity>');
    expect(config).toContain('<password>inter-secret</password>');
    expect(config).not.toContain(spec.passwordVerifier);
  });
});

describe('clickhouseHaPeers', () => {
  it("opens ZooKeeper on the database's address and each member's interserver port, to the servers only", () => {
    expect(clickhouseHaPeers(spec)).toEqual([
      { address: '127.84.0.10', port: ZOOKEEPER_PORT, private: true },
      ...spec.memberAddresses.map((address) => ({ address, port: INTERSERVER_PORT, private: true })),
    ]);
  });
});
