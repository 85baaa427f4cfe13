import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app.config';
import { ApiKeyHasher } from '../secrets/api-key';
import { ApiKey } from './api-key.entity';
import { Project } from './project.entity';

export interface Principal {
  projectId: string;
  userId: string;
}

/**
 * How long a key that verified is trusted without reading its row again. A
 * key revoked through another process (the CLI, SQL) keeps working in this
 * process for at most this long; one revoked through this instance's
 * revokeApiKey stops at once. The secret is still checked against the stored
 * HMAC on every request, so a wrong secret never rides on a cached entry.
 */
export const API_KEY_CACHE_TTL_MS = 5_000;
/** Keys cached at most; the oldest entry makes room. */
export const API_KEY_CACHE_MAX = 10_000;

interface VerifiedKey {
  secretHash: string;
  principal: Principal;
  expiresAt: number;
}

/** Projects and their API keys: issue once, keep only the HMAC, verify in constant time. */
@Injectable()
export class ProjectsService {
  private readonly hasher: ApiKeyHasher;
  /** Rows of keys that verified recently, by key id: spares every /v1 request its api_keys lookup. */
  private readonly verified = new Map<string, VerifiedKey>();

  constructor(
    private readonly dataSource: DataSource,
    config: AppConfig,
  ) {
    this.hasher = ApiKeyHasher.fromDataDir(config.DATA_DIR);
  }

  async createProject(name: string): Promise<Project> {
    return this.dataSource.getRepository(Project).save({ name });
  }

  async findProjectByName(name: string): Promise<Project | null> {
    return this.dataSource.getRepository(Project).findOneBy({ name });
  }

  /** Returns the whole key; it is never stored and cannot be shown again. */
  async issueApiKey(projectId: string, userId: string, label = ''): Promise<{ key: string; keyId: string }> {
    const issued = this.hasher.issue();
    await this.dataSource.getRepository(ApiKey).insert({ keyId: issued.keyId, secretHash: issued.secretHash, projectId, userId, label });
    return { key: issued.key, keyId: issued.keyId };
  }

  async revokeApiKey(keyId: string): Promise<boolean> {
    this.verified.delete(keyId);
    const result = await this.dataSource.getRepository(ApiKey).update({ keyId }, { revokedAt: new Date() });
    return (result.affected ?? 0) > 0;
  }

  /** null for anything that is not a live key of ours (revocation elsewhere: see API_KEY_CACHE_TTL_MS). */
  async verifyApiKey(presented: string): Promise<Principal | null> {
    const parsed = ApiKeyHasher.parse(presented);
    if (!parsed) return null;
    const cached = this.verified.get(parsed.keyId);
    if (cached && cached.expiresAt > Date.now()) {
      return this.hasher.verify(parsed.secret, cached.secretHash) ? { ...cached.principal } : null;
    }
    this.verified.delete(parsed.keyId);
    const row = await this.dataSource.getRepository(ApiKey).findOneBy({ keyId: parsed.keyId });
    if (!row || row.revokedAt || !this.hasher.verify(parsed.secret, row.secretHash)) return null;
    const principal = { projectId: row.projectId, userId: row.userId };
    if (this.verified.size >= API_KEY_CACHE_MAX) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(parsed.keyId, { secretHash: row.secretHash, principal, expiresAt: Date.now() + API_KEY_CACHE_TTL_MS });
    return { ...principal };
  }
}
