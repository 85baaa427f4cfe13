import { HttpException, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { AppConfig, Principal } from '@stratus/core';
import { redisConnection } from '@stratus/queue';
import Redis from 'ioredis';
import { ErrorEnvelope } from './error-envelope';

/**
 * GCRA (the generic cell rate algorithm: a token bucket kept as one
 * timestamp per key) over several keys at once, in one round trip. Each key
 * stores its theoretical arrival time (TAT, ms); a request is admitted when,
 * for EVERY key, `tat + interval - burst * interval <= now`, and only then are
 * all the TATs advanced, so a refused request costs no key anything. Time is
 * Redis's own (TIME), so several api processes with drifting clocks share one
 * bucket. ARGV: per key, its interval (ms per request) and burst.
 * Returns 0 when admitted, else the milliseconds until the request would be.
 */
const GCRA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local wait = 0
local next_tat = {}
for i, key in ipairs(KEYS) do
  local interval = tonumber(ARGV[i * 2 - 1])
  local burst = tonumber(ARGV[i * 2])
  local tat = tonumber(redis.call('GET', key) or now)
  if tat < now then tat = now end
  local new_tat = tat + interval
  local allow_at = new_tat - burst * interval
  if allow_at > now then
    if allow_at - now > wait then wait = allow_at - now end
  end
  next_tat[i] = new_tat
end
if wait > 0 then return math.ceil(wait) end
for i, key in ipairs(KEYS) do
  redis.call('SET', key, next_tat[i], 'PX', math.max(1, math.ceil(next_tat[i] - now)))
end
return 0
`;

/** How long a limit check may wait on Redis before the request goes through unchecked. */
const CHECK_DEADLINE_MS = 250;

/** Who the request counts against: its credential (API key id or token subject) and its project. */
export interface RateSubject {
  principal: Principal;
  /** `key:<key id>` on /v1, `sub:<subject>` on /api/cloud. */
  credential: string;
  /** What the credential is called in the message ("API key", "token subject"). */
  credentialNoun: string;
}

/**
 * Request rate limits per credential and per project, counted in Redis so
 * they hold across every api process. Called by the auth guards once the
 * caller is known (a limit is about who calls, and only an authenticated
 * request says who). When Redis does not answer, the request is let
 * through and the lapse logged: limits protect the service, and refusing
 * every request while Redis is away would be the outage they guard against.
 */
@Injectable()
export class RateLimiter implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('rate-limit');
  private readonly redis: Redis | null;
  private readonly prefix: string;
  private lastLapseLogged = 0;

  constructor(private readonly config: AppConfig) {
    const enabled = config.RATE_LIMIT_CREDENTIAL_PER_SECOND > 0 || config.RATE_LIMIT_PROJECT_PER_SECOND > 0;
    this.prefix = `${config.QUEUE_PREFIX}:ratelimit`;
    this.redis = enabled
      ? new Redis({
          ...redisConnection(config.REDIS_URL),
          // Fail at once while disconnected (fail open) rather than queue the check behind a reconnect.
          enableOfflineQueue: false,
          maxRetriesPerRequest: 0,
          lazyConnect: false,
          connectionName: 'stratus-api-ratelimit',
        })
      : null;
    this.redis?.on('error', () => undefined); // reported per check, throttled
    this.redis?.defineCommand('gcra', { lua: GCRA });
  }

  /**
   * Commands fail at once while disconnected (fail open), so the api waits
   * for the connection before it serves, a little: with Redis away it starts
   * anyway, unlimited until Redis is back.
   */
  async onModuleInit(): Promise<void> {
    const redis = this.redis;
    if (!redis || redis.status === 'ready') return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      timer = setTimeout(resolve, 2_000);
      redis.once('ready', () => resolve());
    });
    clearTimeout(timer);
  }

  async onModuleDestroy(): Promise<void> {
    this.redis?.disconnect();
  }

  /** Throws the 429 (with Retry-After set on `reply`) when either limit is spent. */
  async admit(subject: RateSubject, reply: { header(name: string, value: string): unknown }): Promise<void> {
    if (!this.redis) return;
    const keys: string[] = [];
    const args: number[] = [];
    const limits: string[] = [];
    const c = this.config;
    if (c.RATE_LIMIT_CREDENTIAL_PER_SECOND > 0) {
      keys.push(`${this.prefix}:${subject.credential}`);
      args.push(1000 / c.RATE_LIMIT_CREDENTIAL_PER_SECOND, c.RATE_LIMIT_CREDENTIAL_BURST);
      limits.push(`${c.RATE_LIMIT_CREDENTIAL_PER_SECOND} requests per second per ${subject.credentialNoun}`);
    }
    if (c.RATE_LIMIT_PROJECT_PER_SECOND > 0) {
      keys.push(`${this.prefix}:project:${subject.principal.projectId}`);
      args.push(1000 / c.RATE_LIMIT_PROJECT_PER_SECOND, c.RATE_LIMIT_PROJECT_BURST);
      limits.push(`${c.RATE_LIMIT_PROJECT_PER_SECOND} per second per project`);
    }
    const waitMs = await this.check(keys, args);
    if (waitMs <= 0) return;
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    reply.header('retry-after', String(seconds));
    // The envelope, with the wait also as a number for clients that read the body rather than the header.
    const body: ErrorEnvelope = {
      error: { code: 'rate_limited', message: `rate limit exceeded (${limits.join(', ')}); retry after ${seconds} s`, retry_after: seconds },
    };
    throw new HttpException(body, 429);
  }

  /** 0 (admitted) also when Redis cannot answer in time. */
  private async check(keys: string[], args: number[]): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const call = (this.redis as Redis & { gcra(n: number, ...a: Array<string | number>): Promise<number> }).gcra(keys.length, ...keys, ...args);
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_DEADLINE_MS} ms`)), CHECK_DEADLINE_MS);
      });
      return Number(await Promise.race([call, deadline]));
    } catch (err) {
      // One line a minute at most: Redis away for an hour must not fill the log with a line per request.
      if (Date.now() - this.lastLapseLogged > 60_000) {
        this.lastLapseLogged = Date.now();
        this.logger.warn({ err: String(err) }, 'rate limits not enforced: Redis is unavailable; requests pass unchecked');
      }
      return 0;
    } finally {
      clearTimeout(timer);
    }
  }
}
