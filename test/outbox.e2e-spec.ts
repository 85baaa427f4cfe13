import { Instance, OutboxEntry } from '@stratus/core';
import { resourceJobId } from '@stratus/queue';
import { createTenant, Tenant, TestStack, testDataSource, waitFor, waitForInstance } from '@stratus/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';

describe('transactional outbox', () => {
  let stack: TestStack;
  let db: DataSource;
  let tenant: Tenant;

  beforeAll(async () => {
    stack = await TestStack.start();
    db = await testDataSource();
    tenant = await createTenant(db);
  });

  afterAll(async () => {
    await stack?.stop();
    await db?.destroy();
  });

  it('relays a job whose direct enqueue was lost, and the instance still builds', async () => {
    // What the API writes in its transaction, with the process "crashing" before the direct enqueue.
    const id = randomUUID();
    await db.transaction(async (m) => {
      await m.getRepository(Instance).insert({
        id,
        projectId: tenant.projectId,
        userId: tenant.userId,
        name: 'orphan-job',
        imageId: 'plain',
        flavorId: 'f-nano',
        networkId: 'private',
        keypairName: 'default',
        securityGroupIds: ['sg-default'],
        // The worker's job has the network assign it.
        address: null,
        status: 'BUILD',
        metadata: { isPublic: 'false', enableSSH: 'false' },
        generation: 1,
        buildDeadline: new Date(Date.now() + 600_000),
      });
      await m.getRepository(OutboxEntry).insert({
        jobName: 'instance.create',
        jobId: resourceJobId('instance.create', id, 1),
        payload: { instanceId: id, generation: 1 },
      });
    });

    const entry = await waitFor(
      'the relay to dispatch the row',
      async () => {
        const row = await db.getRepository(OutboxEntry).findOneBy({ jobId: resourceJobId('instance.create', id, 1) });
        return row?.dispatchedAt ? row : undefined;
      },
      { timeoutMs: 20_000 },
    );
    // The relay leaves a fresh row to the direct path for a second, then takes it.
    expect(entry.dispatchedAt!.getTime() - entry.createdAt.getTime()).toBeGreaterThanOrEqual(900);

    const api = stack.http.with({ 'x-api-key': tenant.apiKey });
    const active = await waitForInstance(api, id);
    expect(active.status).toBe('ACTIVE');
  });
});
