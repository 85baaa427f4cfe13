import { loadConfig } from '@stratus/core';
import { LocalProviderModule } from './local/local-provider.module';
import { providerEntry, ProviderUnavailableError } from './provider-registry';
import { DRIVER_TOKENS, ProvidersModule } from './providers.module';

describe('provider registry', () => {
  it('refuses an unknown PROVIDER when the configuration is loaded', () => {
    expect(() => loadConfig({ PROVIDER: 'aws' })).toThrow(/PROVIDER="aws": PROVIDER must be one of the following values: local, fake, openstack/);
  });

  it('refuses a provider that is named but not built, in one line that says so', () => {
    const config = loadConfig({ PROVIDER: 'openstack' });
    expect(() => ProvidersModule.forRoot(config)).toThrow(ProviderUnavailableError);
    expect(() => providerEntry(config)).toThrow(/^PROVIDER=openstack is not built in this release/);
    try {
      providerEntry(config);
    } catch (err) {
      expect(err.message).not.toContain('\n');
    }
  });

  it('refuses the fake provider in production', () => {
    expect(() => providerEntry(loadConfig({ PROVIDER: 'fake', NODE_ENV: 'production' }))).toThrow(/refused with NODE_ENV=production/);
  });

  it('gives the local provider by default, and the fake one from the test tree', () => {
    expect(ProvidersModule.forRoot(loadConfig({})).imports).toEqual([LocalProviderModule]);
    const fake = ProvidersModule.forRoot(loadConfig({ PROVIDER: 'fake' })).imports![0] as { name: string };
    expect(fake.name).toBe('FakeProviderModule');
  });

  it('every built provider exports every driver token', () => {
    for (const name of ['local', 'fake'] as const) {
      const module = providerEntry(loadConfig({ PROVIDER: name })).module();
      const exported = Reflect.getMetadata('exports', module) as unknown[];
      expect({ name, missing: DRIVER_TOKENS.filter((t) => !exported.includes(t)).map(String) }).toEqual({ name, missing: [] });
    }
  });
});
