import { Watch } from './change-feed';

describe('Watch', () => {
  it('resolves true at a change, false when the time is up', async () => {
    const watch = new Watch(() => undefined);
    setImmediate(() => watch.poke());
    expect(await watch.changed(60_000)).toBe(true);
    expect(await watch.changed(1)).toBe(false);
  });

  it('remembers a change that came before the wait', async () => {
    const watch = new Watch(() => undefined);
    watch.poke();
    expect(await watch.changed(60_000)).toBe(true);
  });

  it('ends a wait when closed, and is released once', async () => {
    const release = jest.fn();
    const watch = new Watch(release);
    setImmediate(() => watch.close());
    expect(await watch.changed(60_000)).toBe(false);
    watch.close();
    expect(release).toHaveBeenCalledTimes(1);
  });
});
