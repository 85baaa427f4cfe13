import { loadConfig } from '@stratus/core';
import { LocalProviderModule } from './local/local-provider.module';
import { providerEntry, ProviderUnavailableError } from './provider-registry';
import { DRIVER_TOKENS, ProvidersModule } from './providers.module';

describe('provider registry', () => {
  it('refuses an unknown PROVIDER when the configuration is loaded', () => {
    expect(() => loadConfig({ PROVIDER: 'aws' })).toThrow(/PROVIDER="aws": PROVIDER must be one of the following values: local, fake, openstack/);
  });

  it('refuses the openstack provider without a cloud, in one line that says what to set', () => {
    const config = loadConfig({ PROVIDER: 'openstack' });
    expect(() => ProvidersModule.forRoot(config)).toThrow(ProviderUnavailableError);
    expect(() => providerEntry(config)).toThrow(/^PROVIDER=openstack: PROVIDER=openstack needs OS_CLOUD \(with a clouds.yaml\) or OS_AUTH_URL$/);
    const missing = loadConfig({ PROVIDER: 'openstack', OS_CLOUD: 'nowhere', OS_CLIENT_CONFIG_FILE: '/nonexistent/clouds.yaml' });
    expect(() => providerEntry(missing)).toThrow(/^PROVIDER=openstack: OS_CLOUD=nowhere: no clouds.yaml at \/nonexistent\/clouds.yaml$/);
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
    const cloud = { OS_AUTH_URL: 'http://127.0.0.1:5000/v3', OS_USERNAME: 'u', OS_PASSWORD: 'p', OS_PROJECT_NAME: 'p' };
    for (const name of ['local', 'fake', 'openstack'] as const) {
      const module = providerEntry(loadConfig({ PROVIDER: name, ...cloud })).module();
      const exported = Reflect.getMetadata('exports', module) as unknown[];
      expect({ name, missing: DRIVER_TOKENS.filter((t) => !exported.includes(t)).map(String) }).toEqual({ name, missing: [] });
    }
  });
});
