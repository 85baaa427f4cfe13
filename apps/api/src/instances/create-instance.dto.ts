import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateNested,
} from 'class-validator';

export class InstanceVolumeDto {
  @ApiProperty({ maxLength: 255 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  name: string;

  @ApiProperty({ description: 'GB', minimum: 1, maximum: 16384 })
  @IsInt()
  @Min(1)
  @Max(16384)
  size: number;
}

/** SPEC.md shows `port` as a string; a number is accepted too. Either way 1..65535. */
const IsPort = () =>
  ValidateBy({
    name: 'isPort',
    validator: {
      validate: (v: unknown) =>
        (typeof v === 'string' && /^\d{1,5}$/.test(v) && +v >= 1 && +v <= 65535) ||
        (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 65535),
      defaultMessage: () => 'must be a port number from 1 to 65535',
    },
  });

export class CreateInstanceDto {
  @ApiProperty({ maxLength: 255 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  name: string;

  @ApiProperty({ description: 'from GET /v1/images' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  image_id: string;

  @ApiProperty({ description: 'flavor id or name, from GET /v1/flavors' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  flavor_id: string;

  @ApiProperty({ description: 'from GET /v1/networks' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  network_id: string;

  @ApiProperty({ description: 'from GET /v1/keypairs' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  keypair_name: string;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  security_group_ids?: string[];

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  security_group_names?: string[];

  @ApiPropertyOptional({ type: InstanceVolumeDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => InstanceVolumeDto)
  volume?: InstanceVolumeDto;

  @ApiPropertyOptional({ oneOf: [{ type: 'string' }, { type: 'integer' }], default: '3000' })
  @IsOptional()
  @IsPort()
  port?: string | number;

  @ApiPropertyOptional({ description: 'subdomain prefix (without the domain suffix)', maxLength: 63 })
  @IsOptional()
  @IsString()
  @Matches(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, { message: 'must be a DNS label: lowercase letters, digits and hyphens' })
  dname?: string;

  @ApiPropertyOptional({ description: 'shell script run at first boot', maxLength: 65535 })
  @IsOptional()
  @IsString()
  @MaxLength(65535)
  user_data?: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  imageName?: string;
}
