import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { InjectQueue } from '@nestjs/bullmq';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { QUEUES, withRedisDeadline } from '@stratus/queue';
import { Queue } from 'bullmq';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';

/** Each probe gets this long; both run at once, so /ready answers within 2 s even on a busy machine. */
const PROBE_MS = 1_000;

class LiveView {
  @ApiProperty({ enum: ['ok'] })
  status: 'ok';
}

class ReadyView {
  @ApiProperty({ enum: ['ready'] })
  status: 'ready';
}

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    @InjectQueue(QUEUES.instances) private readonly queue: Queue,
  ) {}

  @Get('health')
  @ApiOperation({ summary: 'Liveness: the process answers' })
  @ApiOkResponse({ type: LiveView })
  health(): LiveView {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Readiness: PostgreSQL and Redis answer; a 503 names the ones that do not' })
  @ApiOkResponse({ type: ReadyView })
  @ApiServiceUnavailableResponse({ description: 'PostgreSQL or Redis does not answer (the message names which)' })
  async ready(): Promise<ReadyView> {
    const [postgres, redis] = await Promise.all([this.postgresAnswers(), this.redisAnswers()]);
    const down = [postgres ? null : 'PostgreSQL', redis ? null : 'Redis'].filter((d): d is string => d !== null);
    if (down.length > 0) throw new ServiceUnavailableException(`not ready: ${down.join(' and ')} unreachable`);
    return { status: 'ready' };
  }

  private async postgresAnswers(): Promise<boolean> {
    const answered = this.dataSource.query('SELECT 1').then(
      () => true,
      () => false,
    );
    return Promise.race([answered, sleep(PROBE_MS, false, { ref: false })]);
  }

  private async redisAnswers(): Promise<boolean> {
    try {
      await withRedisDeadline('ready probe', this.queue.getJobCounts('waiting'), PROBE_MS);
      return true;
    } catch {
      return false;
    }
  }
}
