import { HttpException } from '@nestjs/common';
import { loadConfig } from '@stratus/core';
import { testEnv } from '@stratus/testing';
import { randomUUID } from 'node:crypto';
import { RateLimiter } from './rate-limiter';

/** The limiter against the real Redis, and against none at all. */
describe('RateLimiter', () => {
  const limiterOn = (env: Record<string, string>) =>
    new RateLimiter(
      loadConfig(
        testEnv({
          QUEUE_PREFIX: `stratus-test-ratelimit-${randomUUID().slice(0, 8)}`,
          RATE_LIMIT_CREDENTIAL_PER_SECOND: '1',
          RATE_LIMIT_CREDENTIAL_BURST: '3',
          RATE_LIMIT_PROJECT_PER_SECOND: '0',
          ...env,
        }),
      ),
    );
  const subject = () => ({ principal: { projectId: randomUUID(), userId: 'u' }, credential: `key:${randomUUID()}`, credentialNoun: 'API key' });
  const reply = () => {
    const headers: Record<string, string> = {};
    return { headers, header: (name: string, value: string) => (headers[name] = value) };
  };

  it('admits the burst, then refuses with the wait in Retry-After', async () => {
    const limiter = limiterOn({});
    try {
      await limiter.onModuleInit();
      const who = subject();
      for (let i = 0; i < 3; i++) await limiter.admit(who, reply());
      const r = reply();
      const refused = await limiter.admit(who, r).then(
        () => null,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(HttpException);
      expect((refused as HttpException).getStatus()).toBe(429);
      expect(r.headers['retry-after']).toBe('1');
      // Another credential has its own bucket (the project limit is off here).
      await limiter.admit(subject(), reply());
    } finally {
      await limiter.onModuleDestroy();
    }
  });

  it('with Redis out of reach, lets requests through (fails open) within a bounded wait', async () => {
    const limiter = limiterOn({ REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const who = subject();
      const started = Date.now();
      for (let i = 0; i < 10; i++) await limiter.admit(who, reply());
      expect(Date.now() - started).toBeLessThan(10 * 1000);
    } finally {
      await limiter.onModuleDestroy();
    }
  });
});
