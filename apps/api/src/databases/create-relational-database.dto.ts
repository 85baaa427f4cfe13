import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DatabaseRequest, RELATIONAL_ENGINES, RELATIONAL_VERSIONS, RelationalEngine } from '@stratus/core';
import { IsIn, IsOptional, IsString, MaxLength, ValidateBy, ValidationArguments } from 'class-validator';
import { RequiredString } from '../http/field.decorators';
import { Identifier, ManagedDatabaseFieldsDto, OptionalBoolean, Password } from './managed-database-fields.dto';

const VERSIONS_IN_WORDS = RELATIONAL_ENGINES.map((e) => `${e}: ${RELATIONAL_VERSIONS[e].join(', ')} (default ${RELATIONAL_VERSIONS[e][0]})`).join('; ');

const isEngine = (value: unknown): value is RelationalEngine => (RELATIONAL_ENGINES as readonly unknown[]).includes(value);

/** `version` is checked against the versions of the engine asked for (an unknown engine is engine's error, not this one's). */
const VersionOfEngine = () =>
  ValidateBy({
    name: 'versionOfEngine',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => {
        const engine = (args?.object as { engine?: unknown }).engine;
        // Not a string is IsString's error alone.
        return typeof value !== 'string' || !isEngine(engine) || RELATIONAL_VERSIONS[engine].includes(value);
      },
      defaultMessage: (args?: ValidationArguments) => {
        const engine = (args?.object as { engine: RelationalEngine }).engine;
        return `must be one of ${RELATIONAL_VERSIONS[engine].join(', ')} for ${engine}`;
      },
    },
  });

/** POST /v1/relational-databases: a MariaDB or MySQL server. `ha` is not a field here, so sending it fails validation. */
export class CreateRelationalDatabaseDto extends ManagedDatabaseFieldsDto {
  @ApiProperty({ enum: RELATIONAL_ENGINES })
  @RequiredString()
  @IsIn(RELATIONAL_ENGINES, { message: `must be one of ${RELATIONAL_ENGINES.join(', ')}` })
  engine: RelationalEngine;

  @ApiPropertyOptional({ description: `per engine, ${VERSIONS_IN_WORDS}` })
  @IsOptional()
  @IsString()
  @VersionOfEngine()
  version?: string;

  @ApiPropertyOptional({ default: 'app', maxLength: 63 })
  @Identifier(['mysql', 'information_schema', 'performance_schema', 'sys'])
  db_name?: string;

  // MySQL takes user names of at most 32 characters.
  @ApiPropertyOptional({ default: 'appuser', maxLength: 32 })
  @Identifier(['root', 'mysql'])
  @MaxLength(32)
  db_user?: string;

  @ApiPropertyOptional({ description: 'generated when omitted; returned once, never stored', minLength: 8, maxLength: 128 })
  @Password()
  db_password?: string;

  @ApiPropertyOptional({ default: false, description: 'grants db_user every privilege on every database (WITH GRANT OPTION); otherwise all privileges on db_name only' })
  @OptionalBoolean()
  superuser?: boolean;

  toRequest(): DatabaseRequest {
    return {
      ...this.placement(),
      dbName: this.db_name ?? 'app',
      dbUser: this.db_user ?? 'appuser',
      password: this.db_password,
      version: this.version ?? RELATIONAL_VERSIONS[this.engine][0],
      extensions: [],
      superuser: this.superuser ?? false,
      ha: false,
    };
  }
}
