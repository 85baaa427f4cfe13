import { checkTargetIp } from './target-ip';

const POOL = ['127.77.0.0/16'];

describe('checkTargetIp', () => {
  it.each([
    ['127.77.0.5', '127.77.0.5'],
    ['127.77.12.200', '127.77.12.200'],
    ['::ffff:127.77.0.5', '127.77.0.5'],
    ['127.77.5', '127.77.0.5'],
  ])('accepts %s as %s', (input, canonical) => {
    expect(checkTargetIp(input, POOL)).toEqual({ ok: true, address: canonical });
  });

  // The control plane's loopback, link-local and metadata addresses, in every spelling we know.
  const refused = [
    '127.0.0.1',
    '127.1',
    '127.0.1',
    '0x7f000001',
    '0x7f.0.0.1',
    '0x7f.0x0.0x0.0x1',
    '2130706433',
    '017700000001',
    '0177.0.0.1',
    '0177.0000.0000.0001',
    '127.000.000.001',
    '127.255.255.254',
    '::1',
    '0:0:0:0:0:0:0:1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '0:0:0:0:0:ffff:7f00:0001',
    '::ffff:0:127.0.0.1',
    '::127.0.0.1',
    '169.254.169.254',
    '169.254.170.2',
    '0xa9fea9fe',
    '2852039166',
    '0251.0376.0251.0376',
    '169.254.43518',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    'fd00:ec2::254',
    '100.100.100.200',
    '192.0.0.192',
    'fe80::1',
    'fe80::1%eth0',
    'fe80::a9fe:a9fe',
    '169.254.0.1',
    '0.0.0.0',
    '0',
    '::',
    '255.255.255.255',
    '224.0.0.1',
    'ff02::1',
    '64:ff9b::7f00:1',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::',
    'localhost',
    'metadata.google.internal',
    '[::1]',
    '127.0.0.1:80',
    ' 127.77.0.5',
    '127.77.0.5 ',
    '',
    '10.0.0.1',
    '8.8.8.8',
    '2001:db8::1',
  ];

  it('knows at least 20 forbidden spellings', () => expect(refused.length).toBeGreaterThanOrEqual(20));

  it.each(refused)('refuses %j', (input) => {
    const verdict = checkTargetIp(input, POOL);
    expect(verdict.ok).toBe(false);
  });

  it('refuses loopback outside the instance pool even when a wider network is allowed elsewhere', () => {
    expect(checkTargetIp('127.0.0.1', ['10.0.0.0/8']).ok).toBe(false);
  });

  it('refuses metadata and link-local even when an operator allows everything', () => {
    for (const a of ['169.254.169.254', '::ffff:169.254.169.254', 'fe80::1']) {
      expect(checkTargetIp(a, ['0.0.0.0/0', '::/0']).ok).toBe(false);
    }
    expect(checkTargetIp('10.1.2.3', ['0.0.0.0/0']).ok).toBe(true);
  });

  it.each([
    ['127.77.0.0', '127.77.0.0/16'],
    ['127.77.255.255', '127.77.0.0/16'],
    ['::ffff:127.77.255.255', '127.77.0.0/16'],
    ['127.77.65535', '127.77.0.0/16'],
  ])("refuses the pool's network and broadcast address %s", (input, cidr) => {
    expect(checkTargetIp(input, POOL)).toEqual({ ok: false, reason: `is the network or broadcast address of ${cidr}` });
  });

  it('says why', () => {
    expect(checkTargetIp('169.254.169.254', POOL)).toEqual({ ok: false, reason: 'is a metadata service address' });
    expect(checkTargetIp('127.0.0.1', POOL)).toEqual({ ok: false, reason: 'is a loopback address of the control plane' });
    expect(checkTargetIp('localhost', POOL)).toEqual({ ok: false, reason: 'must be an IP address' });
  });
});
