import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { canonicalExtension, DatabaseRequest, POSTGRES_EXTENSION_ALIASES, POSTGRES_EXTENSIONS, POSTGRES_VERSIONS } from '@stratus/core';
import { ArrayMaxSize, IsArray, IsOptional, IsString, ValidateBy, ValidationArguments } from 'class-validator';
import { Identifier, ManagedDatabaseFieldsDto, OptionalBoolean, Password, Version } from './managed-database-fields.dto';

const ALLOWED = `${POSTGRES_EXTENSIONS.join(', ')} (alias: ${Object.entries(POSTGRES_EXTENSION_ALIASES)
  .map(([alias, name]) => `${alias} for ${name}`)
  .join(', ')})`;

const KnownExtensions = () =>
  ValidateBy({
    name: 'knownExtensions',
    validator: {
      validate: (v: unknown) => Array.isArray(v) && v.every((e) => typeof e === 'string' && canonicalExtension(e) !== null),
      defaultMessage: (args?: ValidationArguments) => {
        const bad = ((args?.value as unknown[]) ?? []).filter((e) => typeof e !== 'string' || canonicalExtension(e) === null);
        return `${bad.map((e) => JSON.stringify(e)).join(', ')} not allowed; allowed values: ${ALLOWED}`;
      },
    },
  });

/** Checked in this order: an array, of strings, each allowed. */
const Extensions = () => applyDecorators(IsOptional(), IsArray(), ArrayMaxSize(POSTGRES_EXTENSIONS.length + 1), IsString({ each: true }), KnownExtensions());

/** POST /v1/databases: a PostgreSQL server. */
export class CreateDatabaseDto extends ManagedDatabaseFieldsDto {
  @ApiPropertyOptional({ default: 'app', maxLength: 63 })
  @Identifier(['postgres', 'template0', 'template1'])
  db_name?: string;

  @ApiPropertyOptional({ default: 'appuser', maxLength: 63 })
  @Identifier(['postgres', 'public'])
  db_user?: string;

  @ApiPropertyOptional({ description: 'generated when omitted; returned once, never stored', minLength: 8, maxLength: 128 })
  @Password()
  db_password?: string;

  @ApiPropertyOptional({ enum: POSTGRES_VERSIONS, default: '16' })
  @Version(POSTGRES_VERSIONS)
  version?: string;

  @ApiPropertyOptional({ type: [String], description: `created at provisioning; ${ALLOWED}` })
  @Extensions()
  extensions?: string[];

  @ApiPropertyOptional({ default: false, description: 'grants db_user superuser privileges' })
  @OptionalBoolean()
  superuser?: boolean;

  @ApiPropertyOptional({ default: false, description: 'three servers with automatic failover (not available yet: such a create ends in error)' })
  @OptionalBoolean()
  ha?: boolean;

  toRequest(): DatabaseRequest {
    return {
      ...this.placement(),
      dbName: this.db_name ?? 'app',
      dbUser: this.db_user ?? 'appuser',
      password: this.db_password,
      version: this.version ?? '16',
      extensions: [...new Set((this.extensions ?? []).map((e) => canonicalExtension(e)!))],
      superuser: this.superuser ?? false,
      ha: this.ha ?? false,
    };
  }
}
