import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { NewProxyHost, ProxyHostChanges } from '@stratus/core';
import { IsDefined, IsObject, ValidateBy, ValidateNested } from 'class-validator';
import { OptionalInt, OptionalString, RequiredInt, RequiredString } from '../http/field.decorators';

export class CreateProxyHostDto implements NewProxyHost {
  @ApiProperty()
  @RequiredString(64)
  instanceId: string;

  @ApiProperty({ description: 'port on the instance', minimum: 1, maximum: 65535 })
  @RequiredInt(1, 65535)
  forwardPort: number;

  @ApiPropertyOptional({ description: 'a name under the domain suffix, or a bare label that gets it; omitted: <uuid>.<suffix>' })
  @OptionalString(253)
  domain?: string;
}

export class ProxyHostUpdateFields implements ProxyHostChanges {
  @ApiPropertyOptional({ minimum: 1, maximum: 65535 })
  @OptionalInt(1, 65535)
  forwardPort?: number;

  @ApiPropertyOptional({ description: 'a new name under the domain suffix' })
  @OptionalString(253)
  domain?: string;
}

export class UpdateProxyHostDto {
  @ApiProperty({ type: ProxyHostUpdateFields, description: 'the fields to change: forwardPort, domain' })
  @IsDefined({ message: 'is required' })
  @IsObject()
  @ValidateNested()
  @Type(() => ProxyHostUpdateFields)
  updateData: ProxyHostUpdateFields;
}

/** Metadata stays a flat map of strings, as GET /v1/instances shows it. */
const IsStringMap = () =>
  ValidateBy({
    name: 'isStringMap',
    validator: {
      validate: (v: unknown) =>
        typeof v === 'object' &&
        v !== null &&
        !Array.isArray(v) &&
        Object.keys(v).length <= 32 &&
        Object.entries(v).every(([k, x]) => /^[A-Za-z0-9_.:-]{1,64}$/.test(k) && typeof x === 'string' && x.length <= 1024),
      defaultMessage: () => 'must be an object of at most 32 string values (keys: letters, digits, _ . : -, at most 64; values at most 1024 characters)',
    },
  });

export class UpdateDnsDto {
  @ApiProperty()
  @RequiredString(64)
  instanceId: string;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  @IsDefined({ message: 'is required' })
  @IsObject()
  @IsStringMap()
  metadata: Record<string, string>;
}
