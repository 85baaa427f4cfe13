import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { NewInstance } from '@stratus/core';
import { IsObject, IsString, Matches, ValidateBy, ValidateNested } from 'class-validator';
import { Omittable, OptionalString, OptionalStringArray, RequiredInt, RequiredString } from '../http/field.decorators';

export class InstanceVolumeDto {
  @ApiProperty({ maxLength: 255 })
  @RequiredString()
  name: string;

  @ApiProperty({ description: 'GB', minimum: 1, maximum: 16384 })
  @RequiredInt(1, 16384)
  size: number;
}

/** SPEC.md shows `port` as a string; a number is accepted too. Either way 1..65535. */
const IsPort = () =>
  ValidateBy({
    name: 'isPort',
    validator: {
      validate: (v: unknown) => (typeof v === 'string' && /^\d{1,5}$/.test(v) && +v >= 1 && +v <= 65535) || (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 65535),
      defaultMessage: () => 'must be a port number from 1 to 65535',
    },
  });

export class CreateInstanceDto implements NewInstance {
  @ApiProperty({ maxLength: 255 })
  @RequiredString()
  name: string;

  @ApiProperty({ description: 'from GET /v1/images' })
  @RequiredString()
  image_id: string;

  @ApiProperty({ description: 'flavor id or name, from GET /v1/flavors' })
  @RequiredString()
  flavor_id: string;

  @ApiProperty({ description: 'from GET /v1/networks' })
  @RequiredString()
  network_id: string;

  @ApiProperty({ description: 'from GET /v1/keypairs' })
  @RequiredString()
  keypair_name: string;

  @ApiPropertyOptional({ type: [String] })
  @OptionalStringArray()
  security_group_ids?: string[];

  @ApiPropertyOptional({ type: [String] })
  @OptionalStringArray()
  security_group_names?: string[];

  @ApiPropertyOptional({ type: InstanceVolumeDto })
  @Omittable()
  @ValidateNested()
  @IsObject()
  @Type(() => InstanceVolumeDto)
  volume?: InstanceVolumeDto;

  @ApiPropertyOptional({ oneOf: [{ type: 'string' }, { type: 'integer' }], default: '3000' })
  @Omittable()
  @IsPort()
  port?: string | number;

  @ApiPropertyOptional({ description: 'subdomain prefix (without the domain suffix)', maxLength: 63 })
  @Omittable()
  @Matches(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, { message: 'must be a DNS label: lowercase letters, digits and hyphens' })
  @IsString()
  dname?: string;

  @ApiPropertyOptional({ description: 'shell script run at first boot', maxLength: 65535 })
  @OptionalString(65535)
  user_data?: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @OptionalString()
  imageName?: string;
}
