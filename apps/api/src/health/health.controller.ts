import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { InjectQueue } from '@nestjs/bullmq';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { QUEUES } from '@stratus/queue';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    @InjectQueue(QUEUES.instances) private readonly queue: Queue,
  ) {}

  @Get('health')
  @ApiOperation({ summary: 'Liveness: the process answers' })
  health() {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Readiness: PostgreSQL and Redis answer' })
  async ready() {
    try {
      await this.dataSource.query('SELECT 1');
      await this.queue.getJobCounts('waiting');
      return { status: 'ready' };
    } catch {
      throw new ServiceUnavailableException('database or queue unreachable');
    }
  }
}
