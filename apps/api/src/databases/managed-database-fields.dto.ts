import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DatabaseRequest } from '@stratus/core';
import { IsBoolean, IsIn, IsOptional, IsString, Matches, MaxLength, MinLength, IsNotIn } from 'class-validator';
import { OptionalStringArray, RequiredString } from '../http/field.decorators';

/*
 * Fields the three managed database creates share. SPEC.md fixes names,
 * types and defaults; the character rules for names and passwords are ours
 * (docs/decisions.md): they go into SQL identifiers, config files and folder
 * names, so only a safe alphabet is accepted.
 */

export const ResourceName = () => applyDecorators(RequiredString(63), Matches(/^[a-z]+(-[a-z]+)*$/, { message: 'must be lowercase letters and hyphens (like "orders-db")' }));

/** db_name and db_user: an identifier every engine accepts unquoted. */
export const Identifier = (reserved: string[]) =>
  applyDecorators(
    IsOptional(),
    IsString(),
    MaxLength(63),
    Matches(/^[a-z_][a-z0-9_]*$/, { message: 'must start with a lowercase letter or underscore and hold only lowercase letters, digits and underscores' }),
    IsNotIn(reserved, { message: `must not be one of the reserved names ${reserved.join(', ')}` }),
  );

export const Password = () =>
  applyDecorators(IsOptional(), IsString(), MinLength(8), MaxLength(128), Matches(/^[\x21-\x7e]+$/, { message: 'must be printable ASCII characters without spaces' }));

export const Version = (allowed: readonly string[]) => applyDecorators(IsOptional(), IsString(), IsIn(allowed as string[], { message: `must be one of ${allowed.join(', ')}` }));

export const OptionalBoolean = () => applyDecorators(IsOptional(), IsBoolean());

/** Placement fields every kind has. */
export abstract class ManagedDatabaseFieldsDto {
  @ApiProperty({ description: 'lowercase letters and hyphens', maxLength: 63, example: 'orders-db' })
  @ResourceName()
  name: string;

  @ApiProperty({ description: 'server size, from GET /v1/flavors (id or name)' })
  @RequiredString()
  flavor_id: string;

  @ApiProperty({ description: 'private network, from GET /v1/networks' })
  @RequiredString()
  network_id: string;

  @ApiProperty({ description: 'from GET /v1/keypairs' })
  @RequiredString()
  keypair_name: string;

  @ApiPropertyOptional({ type: [String], default: ['default'] })
  @OptionalStringArray()
  security_group_names?: string[];

  abstract toRequest(): DatabaseRequest;

  protected placement(): Pick<DatabaseRequest, 'name' | 'flavorId' | 'networkId' | 'keypairName' | 'securityGroupNames'> {
    return {
      name: this.name,
      flavorId: this.flavor_id,
      networkId: this.network_id,
      keypairName: this.keypair_name,
      securityGroupNames: this.security_group_names,
    };
  }
}
