import { ApiPropertyOptional } from '@nestjs/swagger';
import { DatabaseRequest, REDIS_VERSIONS } from '@stratus/core';
import { ManagedDatabaseFieldsDto, Password, Version } from './managed-database-fields.dto';

/** POST /v1/cache: a Redis server. `ha` is not a field here, so sending it fails validation. */
export class CreateCacheDto extends ManagedDatabaseFieldsDto {
  @ApiPropertyOptional({ description: 'generated when omitted; returned once, never stored', minLength: 8, maxLength: 128 })
  @Password()
  password?: string;

  @ApiPropertyOptional({ enum: REDIS_VERSIONS, default: '7' })
  @Version(REDIS_VERSIONS)
  version?: string;

  toRequest(): DatabaseRequest {
    return {
      ...this.placement(),
      dbName: null,
      dbUser: null,
      password: this.password,
      version: this.version ?? '7',
      extensions: [],
      superuser: false,
      ha: false,
    };
  }
}
