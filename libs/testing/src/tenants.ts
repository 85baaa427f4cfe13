import { AppConfig, dataSourceOptions, EmbeddedTokenSigner, loadConfig, ProjectsService } from '@stratus/core';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { testEnv } from './test-env';

export interface Tenant {
  projectId: string;
  userId: string;
  apiKey: string;
  /** A valid Bearer token for the project. */
  token: string;
}

/** Direct database access for tests, on the test database (or the one `overrides` name). */
export async function testDataSource(overrides: Record<string, string> = {}): Promise<DataSource> {
  return new DataSource(dataSourceOptions(testConfig(overrides), 'stratus-test')).initialize();
}

export function testConfig(overrides: Record<string, string> = {}): AppConfig {
  return loadConfig(testEnv(overrides));
}

/** A new project with an API key and a Bearer token, as the CLI would make them. */
export async function createTenant(dataSource: DataSource, name = `t-${randomUUID().slice(0, 8)}`, config = testConfig()): Promise<Tenant> {
  const projects = new ProjectsService(dataSource, config);
  const project = await projects.createProject(name);
  const userId = `user-${name}`;
  const { key } = await projects.issueApiKey(project.id, userId, 'test');
  return { projectId: project.id, userId, apiKey: key, token: signTestToken({ project_id: project.id, sub: userId }) };
}

/** Signs with the embedded key pair; options let a test break one property at a time. */
export function signTestToken(claims: Record<string, unknown>, opts: { issuer?: string; audience?: string; expiresIn?: number } = {}): string {
  const config = testConfig();
  return EmbeddedTokenSigner.fromDataDir(config.DATA_DIR).sign(claims, {
    issuer: opts.issuer ?? config.AUTH_ISSUER,
    audience: opts.audience ?? config.AUTH_AUDIENCE,
    expiresIn: opts.expiresIn ?? 600,
  });
}
