import { renderHostMap } from './haproxy.config';

describe('renderHostMap', () => {
  it('one sorted line per proxy host: name, then address/port', () => {
    expect(
      renderHostMap([
        { hostname: 'web.localhost', ip: '10.0.0.5', port: 3000 },
        { hostname: 'api.localhost', ip: 'fd00::5', port: 8080 },
      ]),
    ).toEqual(['api.localhost fd00::5/8080', 'web.localhost 10.0.0.5/3000']);
  });

  it('leaves out what HAProxy could not route safely (no address, a bad port, a name with a space)', () => {
    expect(
      renderHostMap([
        { hostname: 'ok.localhost', ip: '10.0.0.5', port: 80 },
        { hostname: 'noip.localhost', ip: null as unknown as string, port: 80 },
        { hostname: 'port.localhost', ip: '10.0.0.5', port: 0 },
        { hostname: 'bad name', ip: '10.0.0.5', port: 80 },
      ]),
    ).toEqual(['ok.localhost 10.0.0.5/80']);
  });
});
