import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { InjectQueue } from '@nestjs/bullmq';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { QUEUES, withRedisDeadline } from '@stratus/queue';
import { Queue } from 'bullmq';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';

/** Each probe gets this long; both run at once, so /ready answers within 2 s even on a busy machine. */
const PROBE_MS = 1_000;

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
  @ApiOperation({ summary: 'Readiness: PostgreSQL and Redis answer; a 503 names the ones that do not' })
  async ready() {
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
