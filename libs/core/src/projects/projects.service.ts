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

/** Projects and their API keys: issue once, keep only the HMAC, verify in constant time. */
@Injectable()
export class ProjectsService {
  private readonly hasher: ApiKeyHasher;

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
    await this.dataSource
      .getRepository(ApiKey)
      .insert({ keyId: issued.keyId, secretHash: issued.secretHash, projectId, userId, label });
    return { key: issued.key, keyId: issued.keyId };
  }

  async revokeApiKey(keyId: string): Promise<boolean> {
    const result = await this.dataSource.getRepository(ApiKey).update({ keyId }, { revokedAt: new Date() });
    return (result.affected ?? 0) > 0;
  }

  /** null for anything that is not a live key of ours. */
  async verifyApiKey(presented: string): Promise<Principal | null> {
    const parsed = ApiKeyHasher.parse(presented);
    if (!parsed) return null;
    const row = await this.dataSource.getRepository(ApiKey).findOneBy({ keyId: parsed.keyId });
    if (!row || row.revokedAt || !this.hasher.verify(parsed.secret, row.secretHash)) return null;
    return { projectId: row.projectId, userId: row.userId };
  }
}
