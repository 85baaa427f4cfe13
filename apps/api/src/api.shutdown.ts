import { INestApplication } from '@nestjs/common';
import { Logger } from 'nestjs-pino';

/** Signals that stop a process: a supervisor's SIGTERM, a terminal's Ctrl-C or hang-up. */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/**
 * Stops the api on a signal, in Nest's order: long polls answer at once with
 * what they have (ChangeFeed, before the server closes), the server stops
 * accepting, requests under way finish, then the pools close. Bounded by
 * `timeoutMs`: what still runs then is cut off (a client sees its connection
 * drop and retries; creates are one transaction, never half-written).
 *
 * Nest's own enableShutdownHooks is not used: it stops listening after the
 * first signal, so a second one (a Ctrl-C reaching both the cluster's first
 * process, which forwards it, and its children) would kill mid-drain.
 */
export function stopOnSignals(app: INestApplication, timeoutMs: number): (signal: string) => void {
  const logger = app.get(Logger);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    logger.log({ signal, timeout_ms: timeoutMs }, 'stopping: finishing the requests under way', 'Shutdown');
    setTimeout(() => {
      logger.warn({ timeout_ms: timeoutMs }, 'requests still running at the shutdown deadline; exiting', 'Shutdown');
      process.exit(1);
    }, timeoutMs).unref();
    app.close().then(
      () => {
        logger.log({ took_ms: Date.now() - started }, 'stopped', 'Shutdown');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err: String(err) }, 'shutdown failed', 'Shutdown');
        process.exit(1);
      },
    );
  };
  for (const signal of STOP_SIGNALS) process.on(signal, () => stop(signal));
  return stop;
}
