import { getQueueToken } from '@nestjs/bullmq';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { answerMetrics, AppConfig, METRICS_PATH, OperatorCredential } from '@stratus/core';
import { ALL_QUEUES, QueueName } from '@stratus/queue';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { measureRequests } from './http.metrics';
import { registerStateGauges } from './state.metrics';

/**
 * GET /metrics (Prometheus text format) behind the queue dashboard's operator
 * credentials, and the request measurements it reports. A Fastify route,
 * like the dashboard: an operator's endpoint, not part of the API the
 * OpenAPI document describes.
 */
export function mountMetrics(app: NestFastifyApplication): void {
  const config = app.get(AppConfig);
  const credential = OperatorCredential.fromDataDir(config.DATA_DIR);
  const queues = new Map<QueueName, Queue>(ALL_QUEUES.map((name) => [name, app.get<Queue>(getQueueToken(name), { strict: false })]));
  registerStateGauges(app.get(DataSource), queues);
  const fastify = app.getHttpAdapter().getInstance();
  measureRequests(fastify);
  fastify.get(METRICS_PATH, async (request, reply) => {
    const answer = await answerMetrics(request.headers.authorization, credential);
    return reply.status(answer.status).headers(answer.headers).send(answer.body);
  });
}
