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

describe('loadConfig: API_PROCESSES and SHUTDOWN_TIMEOUT_MS', () => {
  it('defaults to one api process and a 10 s drain', () => {
    const config = loadConfig({});
    expect([config.API_PROCESSES, config.SHUTDOWN_TIMEOUT_MS]).toEqual([1, 10_000]);
    expect(loadConfig({ API_PROCESSES: '4', SHUTDOWN_TIMEOUT_MS: '0' })).toMatchObject({ API_PROCESSES: 4, SHUTDOWN_TIMEOUT_MS: 0 });
  });

  it.each([
    ['API_PROCESSES', '0'],
    ['API_PROCESSES', '65'],
    ['API_PROCESSES', 'two'],
    ['SHUTDOWN_TIMEOUT_MS', '-1'],
    ['SHUTDOWN_TIMEOUT_MS', '600001'],
  ])('refuses %s=%s, naming the setting', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
  });
});
