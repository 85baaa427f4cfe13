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
  const file = join(config.DATA_DIR, 'credentials.json');
  writeFileSync(file, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return credentials;
}
