import { AppConfig } from '@stratus/core';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { OpenStackAuth, OpenStackCloud } from './openstack-client';

/** Where the OpenStack clients look for clouds.yaml when OS_CLIENT_CONFIG_FILE is not set, in their order. */
export function cloudsYamlPaths(cwd = process.cwd()): string[] {
  return [join(cwd, 'clouds.yaml'), join(homedir(), '.config/openstack/clouds.yaml'), '/etc/openstack/clouds.yaml'];
}

type Settings = Pick<
  AppConfig,
  | 'OS_CLOUD'
  | 'OS_CLIENT_CONFIG_FILE'
  | 'OS_AUTH_URL'
  | 'OS_AUTH_TYPE'
  | 'OS_USERNAME'
  | 'OS_USER_ID'
  | 'OS_PASSWORD'
  | 'OS_PROJECT_NAME'
  | 'OS_PROJECT_ID'
  | 'OS_USER_DOMAIN_NAME'
  | 'OS_PROJECT_DOMAIN_NAME'
  | 'OS_REGION_NAME'
  | 'OS_INTERFACE'
  | 'OS_APPLICATION_CREDENTIAL_ID'
  | 'OS_APPLICATION_CREDENTIAL_NAME'
  | 'OS_APPLICATION_CREDENTIAL_SECRET'
>;

/**
 * The cloud the settings name, read the way the OpenStack clients read it:
 * OS_CLOUD picks an entry of clouds.yaml (OS_* variables that are set
 * override it), otherwise the OS_* variables alone. Errors name the setting
 * and never carry a secret.
 */
export function resolveCloud(settings: Settings, cwd = process.cwd()): OpenStackCloud {
  let fromFile: Record<string, any> = {};
  if (settings.OS_CLOUD) {
    const paths = settings.OS_CLIENT_CONFIG_FILE ? [settings.OS_CLIENT_CONFIG_FILE] : cloudsYamlPaths(cwd);
    const path = paths.find((p) => existsSync(p));
    if (!path) throw new Error(`OS_CLOUD=${settings.OS_CLOUD}: no clouds.yaml at ${paths.join(', ')}`);
    // Credentials in a file others can read are refused, as ssh refuses such a key.
    if ((statSync(path).mode & 0o077) !== 0) throw new Error(`${path} holds credentials and may be read by others: chmod 600 it`);
    const doc = parse(readFileSync(path, 'utf8')) as { clouds?: Record<string, any> } | null;
    const entry = doc?.clouds?.[settings.OS_CLOUD];
    if (!entry) throw new Error(`OS_CLOUD=${settings.OS_CLOUD}: ${path} has no cloud of that name`);
    fromFile = entry;
  }
  const a = fromFile.auth ?? {};
  const pick = (env: string, file: unknown) => env || (typeof file === 'string' ? file : '');
  const authUrl = pick(settings.OS_AUTH_URL, a.auth_url);
  if (!authUrl) throw new Error('PROVIDER=openstack needs OS_CLOUD (with a clouds.yaml) or OS_AUTH_URL');
  const authType = pick(settings.OS_AUTH_TYPE, fromFile.auth_type) || 'password';
  const iface = pick(settings.OS_INTERFACE, fromFile.interface) || 'public';
  if (!['public', 'internal', 'admin'].includes(iface)) throw new Error(`OS_INTERFACE=${iface}: must be public, internal or admin`);
  let auth: OpenStackAuth;
  if (authType === 'v3applicationcredential') {
    const secret = pick(settings.OS_APPLICATION_CREDENTIAL_SECRET, a.application_credential_secret);
    const id = pick(settings.OS_APPLICATION_CREDENTIAL_ID, a.application_credential_id);
    const name = pick(settings.OS_APPLICATION_CREDENTIAL_NAME, a.application_credential_name);
    if (!secret || (!id && !name)) throw new Error('an application credential needs its secret and its id (or name and user)');
    auth = {
      kind: 'application_credential',
      secret,
      id: id || undefined,
      name: name || undefined,
      username: pick(settings.OS_USERNAME, a.username) || undefined,
      userId: pick(settings.OS_USER_ID, a.user_id) || undefined,
      userDomainName: pick(settings.OS_USER_DOMAIN_NAME, a.user_domain_name) || undefined,
    };
  } else if (authType === 'password' || authType === 'v3password') {
    const password = pick(settings.OS_PASSWORD, a.password);
    const username = pick(settings.OS_USERNAME, a.username);
    const userId = pick(settings.OS_USER_ID, a.user_id);
    if (!password || (!username && !userId)) throw new Error('password auth needs OS_USERNAME (or OS_USER_ID) and OS_PASSWORD');
    auth = {
      kind: 'password',
      password,
      username: username || undefined,
      userId: userId || undefined,
      userDomainName: pick(settings.OS_USER_DOMAIN_NAME, a.user_domain_name) || undefined,
      userDomainId: a.user_domain_id,
      projectName: pick(settings.OS_PROJECT_NAME, a.project_name ?? a.tenant_name) || undefined,
      projectId: pick(settings.OS_PROJECT_ID, a.project_id ?? a.tenant_id) || undefined,
      projectDomainName: pick(settings.OS_PROJECT_DOMAIN_NAME, a.project_domain_name) || undefined,
      projectDomainId: a.project_domain_id,
    };
  } else {
    throw new Error(`auth type ${authType} is not supported: use password or v3applicationcredential`);
  }
  return {
    authUrl,
    auth,
    regionName: pick(settings.OS_REGION_NAME, fromFile.region_name) || undefined,
    interface: iface as OpenStackCloud['interface'],
  };
}
