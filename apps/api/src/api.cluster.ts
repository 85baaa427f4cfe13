import { AppConfig, createLogger } from '@stratus/core';
import cluster, { Worker } from 'node:cluster';
import { STOP_SIGNALS } from './api.shutdown';

/** Wait before starting a crashed api process again; doubled for each crash soon after. */
const RESTART_FIRST_MS = 250;
const RESTART_MAX_MS = 30_000;
/** A process that served this long was healthy: its next crash restarts it after RESTART_FIRST_MS again. */
const HEALTHY_UPTIME_MS = 60_000;
/** Beyond the processes' own shutdown bound: their exit (pools closing, logs flushing) takes a moment too. */
const EXIT_GRACE_MS = 2_000;

/**
 * The first process of an api of API_PROCESSES processes. Node 20 has no
 * SO_REUSEPORT for a plain listen, so the processes share one socket the
 * node:cluster way: this process accepts and hands each connection to the
 * next serving process in turn (round-robin, Node's default on Linux). It
 * builds no app and holds no connection to PostgreSQL or Redis; it starts the
 * serving processes, starts again one that dies, and on a stop signal passes
 * SIGTERM on and waits for them to drain (each bounded by
 * SHUTDOWN_TIMEOUT_MS). A dead serving process costs only the connections it
 * held: the others keep accepting.
 */
export function runApiCluster(config: AppConfig): void {
  const logger = createLogger('api', config.LOG_LEVEL);
  const slots = Array.from({ length: config.API_PROCESSES }, (_, slot) => ({ slot, worker: null as Worker | null, startedAt: 0, delay: RESTART_FIRST_MS }));
  let stopping = false;

  const start = (s: (typeof slots)[number]) => {
    const worker = cluster.fork();
    s.worker = worker;
    s.startedAt = Date.now();
    worker.on('exit', (code, signal) => {
      s.worker = null;
      if (stopping) {
        if (slots.every((x) => x.worker === null)) {
          logger.info('every api process stopped');
          logger.flush();
          process.exit(0);
        }
        return;
      }
      const uptime = Date.now() - s.startedAt;
      if (uptime >= HEALTHY_UPTIME_MS) s.delay = RESTART_FIRST_MS;
      const delay = s.delay;
      s.delay = Math.min(delay * 2, RESTART_MAX_MS);
      logger.error({ pid: worker.process.pid, code, signal, uptime_ms: uptime, restart_in_ms: delay }, 'an api process exited; starting another');
      setTimeout(() => {
        if (!stopping) start(s);
      }, delay);
    });
  };

  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    const live = slots.filter((s) => s.worker !== null);
    logger.info({ signal, processes: live.length }, 'stopping the api processes');
    if (live.length === 0) process.exit(0);
    // By pid, not worker.kill(): that closes the IPC channel first, and a
    // serving process whose channel closes exits at once, mid-response.
    for (const s of live) if (s.worker?.process.pid) process.kill(s.worker.process.pid, 'SIGTERM');
    setTimeout(() => {
      const left = slots.filter((s) => s.worker !== null);
      logger.warn({ processes: left.map((s) => s.worker?.process.pid) }, 'api processes still running past the shutdown deadline; killing them');
      for (const s of left) s.worker?.process.kill('SIGKILL');
      logger.flush();
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS + EXIT_GRACE_MS).unref();
  };
  for (const signal of STOP_SIGNALS) process.on(signal, () => stop(signal));

  logger.info({ processes: slots.length, port: config.API_PORT }, 'starting the api processes');
  for (const s of slots) start(s);
}
