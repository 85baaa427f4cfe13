import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { NewVolume } from '@stratus/core';
import { OptionalString, RequiredInt, RequiredString } from '../http/field.decorators';

export class CreateVolumeDto implements NewVolume {
  @ApiProperty({ maxLength: 255 })
  @RequiredString()
  name: string;

  @ApiProperty({ description: 'GiB', minimum: 1, maximum: 16384 })
  @RequiredInt(1, 16384)
  size: number;

  @ApiPropertyOptional({ maxLength: 1024 })
  @OptionalString(1024)
  description?: string;
}

export class AttachVolumeDto {
  @ApiProperty()
  @RequiredString(64)
  volume_id: string;

  @ApiProperty()
  @RequiredString(64)
  instance_id: string;
}

export class DetachVolumeDto {
  @ApiProperty({ description: "from the attach result or the volume's attachments" })
  @RequiredString(64)
  attachment_id: string;

  @ApiProperty()
  @RequiredString(64)
  volume_id: string;
}
