import { ApiPropertyOptional } from '@nestjs/swagger';
import { DatabaseRequest } from '@stratus/core';
import { Identifier, ManagedDatabaseFieldsDto, OptionalBoolean, Password } from './managed-database-fields.dto';

/** POST /v1/analytics: a ClickHouse server. */
export class CreateAnalyticsDto extends ManagedDatabaseFieldsDto {
  @ApiPropertyOptional({ default: 'analytics', maxLength: 63 })
  @Identifier(['system'])
  db_name?: string;

  @ApiPropertyOptional({ default: 'appuser', maxLength: 63 })
  @Identifier(['default'])
  db_user?: string;

  @ApiPropertyOptional({ description: 'generated when omitted; returned once, never stored', minLength: 8, maxLength: 128 })
  @Password()
  db_password?: string;

  @ApiPropertyOptional({
    default: false,
    description:
      'three ClickHouse replicas behind one load-balancer address, replicated tables made ON CLUSTER stratus on all three; roughly triples the cost; never enabled implicitly',
  })
  @OptionalBoolean()
  ha?: boolean;

  toRequest(): DatabaseRequest {
    return {
      ...this.placement(),
      dbName: this.db_name ?? 'analytics',
      dbUser: this.db_user ?? 'appuser',
      password: this.db_password,
      version: null,
      extensions: [],
      superuser: false,
      ha: this.ha ?? false,
    };
  }
}
