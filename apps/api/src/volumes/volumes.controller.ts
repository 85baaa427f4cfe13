import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiCreatedResponse, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Principal, VOLUME_STATUSES, VolumeLifecycle } from '@stratus/core';
import { pageRequest, StatusListQuery } from '../http/list-query';
import { ApiListResponse, LongPoll } from '../http/long-poll.interceptor';
import { Links, PageLinks } from '../http/page-links';
import { BearerAuth } from '../auth/bearer.guard';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { AttachVolumeDto, CreateVolumeDto, DetachVolumeDto } from './volume.dto';
import { MessageView } from '../http/message.view';
import { presentAttachment, presentVolume, VolumeAttachmentResultView, VolumeView } from './volume.presenter';
import { Idempotent } from '../http/idempotency.interceptor';
import { QuotaLimited } from '../http/quota.openapi';

/** `?status=` takes the statuses the list shows. */
class VolumeListQuery extends StatusListQuery(VOLUME_STATUSES) {}

@ApiTags('volumes')
@BearerAuth()
@ApiForbiddenResponse({ description: "another project's instance (another project's volume is 404, as a missing one)" })
@Controller('api/cloud/volumes')
export class VolumesController {
  constructor(private readonly volumes: VolumeLifecycle) {}

  @Post('create')
  @Idempotent()
  @ApiOperation({ summary: 'Create a volume (size in GiB); it is `creating` until the provider has made it, then `available`' })
  @ApiCreatedResponse({ description: 'the volume object', type: VolumeView })
  @QuotaLimited(['volume_gb'])
  async create(@Body() dto: CreateVolumeDto, @CurrentPrincipal() principal: Principal): Promise<VolumeView> {
    return presentVolume(await this.volumes.create(dto, principal));
  }

  @Get('list')
  @ApiOperation({ summary: "The project's volumes, newest first, a page at a time; ?wait= long-polls for a change" })
  @ApiListResponse(VolumeView)
  @LongPoll('volumes')
  async list(@Query() query: VolumeListQuery, @CurrentPrincipal() principal: Principal, @Links() links: PageLinks): Promise<VolumeView[]> {
    return links.answer(await this.volumes.list(principal, pageRequest(query)), presentVolume);
  }

  @Delete('delete/:id')
  @ApiOperation({ summary: 'Delete a volume that is not attached' })
  @ApiOkResponse({ type: MessageView, description: 'message: Volume deleted successfully' })
  @ApiNotFoundResponse({ description: 'no such volume' })
  @ApiConflictResponse({ description: 'the volume is attached or changing' })
  async delete(@Param('id') id: string, @CurrentPrincipal() principal: Principal): Promise<MessageView> {
    await this.volumes.delete(id, principal);
    return { message: 'Volume deleted successfully' };
  }

  @Post('attach')
  @HttpCode(200)
  @ApiOperation({ summary: 'Attach to an instance; the result carries the attachment id that detach takes' })
  @ApiOkResponse({ type: VolumeAttachmentResultView })
  @ApiNotFoundResponse({ description: 'no such volume or instance' })
  @ApiConflictResponse({ description: 'already attached, or not available' })
  async attach(@Body() dto: AttachVolumeDto, @CurrentPrincipal() principal: Principal): Promise<VolumeAttachmentResultView> {
    return presentAttachment(await this.volumes.attach(dto.volume_id, dto.instance_id, principal));
  }

  @Post('detach')
  @HttpCode(200)
  @ApiOperation({ summary: 'Detach from its instance; the volume is available again' })
  @ApiOkResponse({ type: VolumeAttachmentResultView })
  @ApiNotFoundResponse({ description: 'no such volume' })
  @ApiBadRequestResponse({ description: "the attachment id is not the volume's" })
  @ApiConflictResponse({ description: 'the volume is not attached' })
  async detach(@Body() dto: DetachVolumeDto, @CurrentPrincipal() principal: Principal): Promise<VolumeAttachmentResultView> {
    const volume = await this.volumes.detach(dto.volume_id, dto.attachment_id, principal);
    return { ...presentAttachment(volume), attachment_id: dto.attachment_id };
  }
}
