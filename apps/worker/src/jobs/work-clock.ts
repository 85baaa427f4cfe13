import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Beat, beatWorkClock, BuildDeadline, pastBuildDeadline, StandStill, standStillsSince, WORK_CLOCK_BEAT_MS } from '@stratus/core';
import { QUEUES, withRedisDeadline } from '@stratus/queue';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';

/**
 * Build deadlines count only the time the control plane could work. Every
 * worker beats the work clock (libs/core, work-clock.ts) while PostgreSQL
 * and Redis both answer it; the first beat after a stand-still (every
 * worker stopped, or either of them away) moves the deadlines of what is
 * building on by it. Otherwise an outage longer than a deadline, or a
 * worker fleet down that long, would fail every build in flight as it
 * came back: a false ERROR, the provider had done nothing wrong.
 */
@Injectable()
export class WorkClock implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('jobs');
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<Beat> | null = null;

  constructor(
    private readonly dataSource: DataSource,
    @InjectQueue(QUEUES.maintenance) private readonly queue: Queue,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), WORK_CLOCK_BEAT_MS);
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Whether a build's deadline has passed, counting only the time the
   * control plane worked: one that seems past is asked again after a beat,
   * which moves it on first if the control plane stood still since the last.
   */
  async passed(kind: BuildDeadline, id: string | number, deadline: Date | null): Promise<boolean> {
    if (!deadline || deadline.getTime() >= Date.now()) return false;
    await this.beat();
    return pastBuildDeadline(this.dataSource, kind, id);
  }

  /** The stand-stills since `since`, one that has just ended included: a beat first records it. */
  async standStillsSince(since: Date): Promise<StandStill[]> {
    await this.beat();
    return standStillsSince(this.dataSource, since);
  }

  /** One beat at a time in this process: callers meanwhile share it. */
  beat(): Promise<Beat> {
    this.beating ??= beatWorkClock(this.dataSource)
      .then((beat) => {
        if (beat.stoodStillMs > 0) {
          this.logger.warn({ stoodStillS: Math.round(beat.stoodStillMs / 1000), moved: beat.moved }, 'the control plane stood still: build deadlines moved on by it');
        }
        return beat;
      })
      .finally(() => (this.beating = null));
    return this.beating;
  }

  /** A beat only while Redis answers too: without it no job runs, and the deadlines should not run down. */
  private async tick(): Promise<void> {
    try {
      await withRedisDeadline('work clock: Redis answers', this.queue.count());
      await this.beat();
    } catch {
      // PostgreSQL or Redis is away: the clock stands still until both answer, and that is the point.
    }
  }
}
