import { loadConfig } from '@stratus/core';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveCloud } from './openstack-cloud';

describe('openstack cloud settings', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'clouds-'));
    file = join(dir, 'clouds.yaml');
    writeFileSync(
      file,
      [
        'clouds:',
        '  lab:',
        '    region_name: RegionTwo',
        '    auth:',
        '      auth_url: http://keystone.example:5000/v3',
        '      username: ops',
        '      password: s3cret-value',
        '      project_name: web',
        '      user_domain_name: Default',
        '      project_domain_name: Default',
        '  app:',
        '    auth_type: v3applicationcredential',
        '    auth:',
        '      auth_url: http://keystone.example:5000',
        '      application_credential_id: abc',
        '      application_credential_secret: s3cret-value',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const config = (env: Record<string, string>) => loadConfig({ PROVIDER: 'openstack', ...env });

  it('reads a cloud of clouds.yaml, as the OpenStack clients do', () => {
    expect(resolveCloud(config({ OS_CLOUD: 'lab', OS_CLIENT_CONFIG_FILE: file }))).toEqual({
      authUrl: 'http://keystone.example:5000/v3',
      regionName: 'RegionTwo',
      interface: 'public',
      auth: expect.objectContaining({ kind: 'password', username: 'ops', password: 's3cret-value', projectName: 'web', userDomainName: 'Default' }),
    });
    expect(resolveCloud(config({ OS_CLOUD: 'app', OS_CLIENT_CONFIG_FILE: file })).auth).toEqual(
      expect.objectContaining({ kind: 'application_credential', id: 'abc', secret: 's3cret-value' }),
    );
  });

  it('lets OS_* variables override the file, or stand alone', () => {
    expect(resolveCloud(config({ OS_CLOUD: 'lab', OS_CLIENT_CONFIG_FILE: file, OS_REGION_NAME: 'RegionOne', OS_INTERFACE: 'internal' }))).toMatchObject({
      regionName: 'RegionOne',
      interface: 'internal',
    });
    expect(resolveCloud(config({ OS_AUTH_URL: 'http://k:5000/v3', OS_USERNAME: 'u', OS_PASSWORD: 'p', OS_PROJECT_NAME: 'x' })).auth).toMatchObject({
      kind: 'password',
      username: 'u',
      projectName: 'x',
    });
  });

  it('refuses a clouds.yaml others may read, an unknown cloud, and missing credentials, never quoting a secret', () => {
    chmodSync(file, 0o644);
    expect(() => resolveCloud(config({ OS_CLOUD: 'lab', OS_CLIENT_CONFIG_FILE: file }))).toThrow(/may be read by others: chmod 600 it/);
    chmodSync(file, 0o600);
    expect(() => resolveCloud(config({ OS_CLOUD: 'nope', OS_CLIENT_CONFIG_FILE: file }))).toThrow(/has no cloud of that name/);
    const errors: string[] = [];
    const envs: Array<Record<string, string>> = [
      { OS_AUTH_URL: 'http://k/v3', OS_PASSWORD: 's3cret-value' },
      { OS_AUTH_URL: 'http://k/v3', OS_AUTH_TYPE: 'v3applicationcredential', OS_APPLICATION_CREDENTIAL_SECRET: 's3cret-value' },
    ];
    for (const env of envs) {
      try {
        resolveCloud(config(env));
      } catch (err) {
        errors.push((err as Error).message);
      }
    }
    expect(errors).toHaveLength(2);
    expect(errors.join()).not.toContain('s3cret-value');
  });
});
