import { AddressInfo, createServer, Server } from 'node:net';
import { shadowedByWildcard, tcpListeners } from './listeners';

const listen = (host: string, port = 0) =>
  new Promise<Server>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
const portOf = (s: Server) => (s.address() as AddressInfo).port;
const close = (s: Server) => new Promise((r) => s.close(r));

describe('listeners', () => {
  it('reads the address and port of real listeners, IPv4 and IPv6 wildcard alike', async () => {
    const [exact, v4, v6] = await Promise.all([listen('127.66.1.2'), listen('0.0.0.0'), listen('::')]);
    try {
      const found = tcpListeners();
      expect(found).toContainEqual({ address: '127.66.1.2', port: portOf(exact) });
      expect(found).toContainEqual({ address: '0.0.0.0', port: portOf(v4) });
      expect(found).toContainEqual({ address: '::', port: portOf(v6) });
      expect(shadowedByWildcard('127.66.1.2', portOf(v4))).toBe(true);
      expect(shadowedByWildcard('127.66.1.2', portOf(v6))).toBe(true);
      expect(shadowedByWildcard('127.66.1.2', portOf(exact))).toBe(false);
    } finally {
      await Promise.all([exact, v4, v6].map(close));
    }
  });

  it.each([
    ['a wildcard listener alone', [{ address: '0.0.0.0', port: 80 }], true],
    ['a dual-stack wildcard listener alone', [{ address: '::', port: 80 }], true],
    [
      'the address bound exactly beside a wildcard (the kernel prefers it)',
      [
        { address: '0.0.0.0', port: 80 },
        { address: '127.77.0.5', port: 80 },
      ],
      false,
    ],
    ['another address bound exactly', [{ address: '127.77.0.6', port: 80 }], false],
    ['a wildcard listener on another port', [{ address: '0.0.0.0', port: 81 }], false],
    ['nothing listening', [], false],
  ])('127.77.0.5:80 with %s: shadowed %s', (_label, listeners, shadowed) => {
    expect(shadowedByWildcard('127.77.0.5', 80, listeners)).toBe(shadowed);
  });
});
