import { GATEWAY_PORTS_MAX, loadConfig } from './app.config';

describe('loadConfig: GATEWAY_PORT_RANGE', () => {
  const load = (range: string) => () => loadConfig({ GATEWAY_PORT_RANGE: range });

  it('takes a range up to GATEWAY_PORTS_MAX ports (the edge holds every one)', () => {
    expect(load('20000-20999')().gatewayPorts).toEqual({ from: 20000, to: 20999 });
    expect(load(`30000-${30000 + GATEWAY_PORTS_MAX - 1}`)().gatewayPorts.to).toBe(30000 + GATEWAY_PORTS_MAX - 1);
  });

  it.each([
    ['one port too many', `30000-${30000 + GATEWAY_PORTS_MAX}`],
    ['backwards', '20999-20000'],
    ['past 65535', '65000-65536'],
    ['port 0', '0-10'],
  ])('refuses %s, naming the setting', (_label, range) => {
    expect(load(range)).toThrow(/GATEWAY_PORT_RANGE=.*at most 10000 ports/);
  });
});
