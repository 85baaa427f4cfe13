import basicAuth from '@fastify/basic-auth';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter as BoardAdapter } from '@bull-board/fastify';
import { getQueueToken } from '@nestjs/bullmq';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig, OperatorCredential } from '@stratus/core';
import { ALL_QUEUES } from '@stratus/queue';
import { Queue } from 'bullmq';
import { envelope } from '../http/error-envelope';
import { hardenDashboardPage } from './queue-dashboard.page';

export const DASHBOARD_PATH = '/admin/queues';

/**
 * The operators' queue dashboard (bull-board), behind HTTP basic auth as
 * `operator` with the password printed at bootstrap. Only its scrypt hash is
 * kept.
 */
export async function mountQueueDashboard(app: NestFastifyApplication): Promise<void> {
  const config = app.get(AppConfig);
  const credential = OperatorCredential.fromDataDir(config.DATA_DIR);
  const board = new BoardAdapter();
  board.setBasePath(DASHBOARD_PATH);
  createBullBoard({
    queues: ALL_QUEUES.map((name) => new BullMQAdapter(app.get<Queue>(getQueueToken(name), { strict: false }))),
    serverAdapter: board,
  });
  const fastify = app.getHttpAdapter().getInstance();
  await fastify.register(async (scope) => {
    hardenDashboardPage(scope);
    await scope.register(basicAuth, {
      validate: async (user, password) => {
        if (user !== 'operator' || !credential.verify(password)) throw new Error('invalid operator credentials');
      },
      authenticate: { realm: 'stratus-operators' },
    });
    // Answer a failed login here: bull-board's own error handler would not use the envelope.
    scope.addHook('onRequest', (request, reply, done) =>
      scope.basicAuth(request, reply, (err) => {
        if (!err) return done();
        reply.status(401).header('www-authenticate', 'Basic realm="stratus-operators"').send(envelope(401, 'operator credentials required'));
      }),
    );
    await scope.register(board.registerPlugin() as never, { prefix: DASHBOARD_PATH });
  });
}
