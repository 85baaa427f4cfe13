import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app.config';
import { dataSourceOptions } from '../database/database.options';
import { ProjectsService } from '../projects/projects.service';
import { OperatorCredential } from '../secrets/operator-credential';
import { EmbeddedTokenSigner } from '../secrets/token-signer';

/** Creates the database named in DATABASE_URL when the server does not have it yet. */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`).catch((err) => {
        if (err.code !== '42P04') throw err; // created concurrently
      });
    }
  } finally {
    await client.end();
  }
}

/** Database present and migrated; returns an initialised DataSource the caller closes. */
export async function migrate(config: AppConfig): Promise<DataSource> {
  await ensureDatabase(config.DATABASE_URL);
  const dataSource = await new DataSource(dataSourceOptions(config, 'stratus-setup')).initialize();
  await dataSource.runMigrations({ transaction: 'each' });
  return dataSource;
}

export interface Credentials {
  project_id: string;
  project_name: string;
  api_key: string;
  bearer_token: string;
  token_expires_at: string;
  /** Basic-auth password of the queue dashboard, user `operator`. */
  operator_password: string | null;
}

/** Mints a development Bearer token with the embedded key pair. */
export function mintToken(config: AppConfig, projectId: string, userId: string, ttlSeconds: number): string {
  return EmbeddedTokenSigner.fromDataDir(config.DATA_DIR).sign(
    { [config.AUTH_PROJECT_CLAIM]: projectId, sub: userId },
    { issuer: config.AUTH_ISSUER, audience: config.AUTH_AUDIENCE, expiresIn: ttlSeconds },
  );
}

/**
 * The first project, once: an API key and a Bearer token, written to
 * DATA_DIR/credentials.json (mode 0600) for the operator. Returns null when
 * a project already exists.
 */
export async function bootstrapFirstProject(dataSource: DataSource, config: AppConfig): Promise<Credentials | null> {
  const projects = new ProjectsService(dataSource, config);
  if (await projects.findProjectByName('default')) return null;
  const project = await projects.createProject('default');
  const { key } = await projects.issueApiKey(project.id, 'admin', 'bootstrap');
  const ttl = 30 * 24 * 3600;
  const credentials: Credentials = {
    project_id: project.id,
    project_name: project.name,
    api_key: key,
    bearer_token: config.AUTH_JWKS_URL ? '' : mintToken(config, project.id, 'admin', ttl),
    token_expires_at: new Date(Date.now() + ttl * 1000).toISOString(),
    operator_password: OperatorCredential.create(config.DATA_DIR),
  };
  mkdirSync(config.DATA_DIR, { recursive: true });
  const file = credentialsFile(config);
  writeFileSync(file, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return credentials;
}

export function credentialsFile(config: Pick<AppConfig, 'DATA_DIR'>): string {
  return join(config.DATA_DIR, 'credentials.json');
}

/**
 * What the first start says about the credentials it created. The secrets
 * themselves only go to a terminal: redirected to a file (a service
 * manager's log, `npm start > start.log`) they would sit there readable by
 * anyone the log is, for as long as it is kept; credentials.json is 0600.
 */
export function firstProjectNotice(created: Credentials, file: string, toTerminal: boolean): string {
  const lines = [`First project created: ${created.project_name} (${created.project_id}).`];
  if (toTerminal) {
    lines.push(
      `These credentials are shown once and kept in ${file} (mode 0600):`,
      '',
      `  x-api-key:    ${created.api_key}`,
      ...(created.bearer_token ? [`  Bearer token: ${created.bearer_token}`] : []),
      ...(created.operator_password ? [`  queue dashboard: user operator, password ${created.operator_password}`] : []),
    );
  } else {
    lines.push(`Its API key, Bearer token and queue dashboard password are in ${file} (mode 0600);`, 'they are printed only when the output is a terminal.');
  }
  return `\n${lines.join('\n')}\n`;
}
