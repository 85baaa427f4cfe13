import { INestApplicationContext, Logger } from '@nestjs/common';
import { answerMetrics, AppConfig, METRICS_PATH, OperatorCredential } from '@stratus/core';
import { WorkerHost } from '@nestjs/bullmq';
import { createServer, Server } from 'node:http';
import { DatabasesProcessor } from '../databases/databases.processor';
import { RoutesProcessor } from '../gateway/routes.processor';
import { InstancesProcessor } from '../instances/instances.processor';
import { MaintenanceProcessor } from '../schedules/maintenance.processor';
import { VolumesProcessor } from '../volumes/volumes.processor';
import { measureJobs } from './job.metrics';

/** Every processor of the worker: each one's BullMQ worker is measured. */
const PROCESSORS = [InstancesProcessor, DatabasesProcessor, VolumesProcessor, RoutesProcessor, MaintenanceProcessor];

/**
 * The worker's metrics: its jobs measured, and GET /metrics on
 * WORKER_METRICS_LISTEN behind the operator's basic credentials. The worker
 * has no other HTTP server; this one is a plain node:http server with one
 * route, unref'd so it never holds a stopping worker. A port already taken
 * (a second worker on the host) costs this worker its metrics, not its work.
 */
export async function startWorkerMetrics(app: INestApplicationContext): Promise<Server | null> {
  for (const processor of PROCESSORS) measureJobs(app.get<WorkerHost>(processor).worker);
  const config = app.get(AppConfig);
  const listen = config.workerMetricsListen;
  if (!listen) return null;
  const credential = OperatorCredential.fromDataDir(config.DATA_DIR);
  const logger = new Logger('WorkerMetrics');
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== METRICS_PATH || (request.method !== 'GET' && request.method !== 'HEAD')) {
      const [status, code, message] = path === METRICS_PATH ? [405, 'method_not_allowed', 'only GET'] : [404, 'not_found', `only ${METRICS_PATH} is served here`];
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: { code, message } }));
      return;
    }
    answerMetrics(request.headers.authorization, credential).then(
      (answer) => response.writeHead(answer.status, answer.headers).end(request.method === 'HEAD' ? undefined : answer.body),
      (err) => {
        logger.error({ err: String(err) }, 'metrics collection failed');
        response
          .writeHead(500, { 'content-type': 'application/json; charset=utf-8' })
          .end(JSON.stringify({ error: { code: 'internal_error', message: 'metrics collection failed' } }));
      },
    );
  });
  return new Promise((resolve) => {
    server.once('error', (err) => {
      logger.warn({ err: err.message, listen: config.WORKER_METRICS_LISTEN }, 'cannot listen for /metrics; this worker runs without them');
      resolve(null);
    });
    server.listen(listen.port, listen.host, () => {
      server.unref();
      logger.log({ listen: config.WORKER_METRICS_LISTEN }, 'metrics served');
      resolve(server);
    });
  });
}
