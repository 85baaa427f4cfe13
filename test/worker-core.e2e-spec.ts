import { Test, TestingModule } from '@nestjs/testing';
import { Instance, InstanceLifecycle, loadConfig, ProxyHost } from '@stratus/core';
import { DEMO_INSTANCE, useSuite, waitForInstance } from '@stratus/testing';
import { WorkerModule } from '../apps/worker/src/worker.module';

/*
 * The worker creates resources through the same libs/core lives as the api
 * (a cluster creates its members so): its module, resolved by Nest as the
 * worker process resolves it, creates an instance on the real database, and
 * the running worker boots it from the outbox job that create wrote.
 */
describe("the worker's resource lives", () => {
  const s = useSuite();
  let worker: TestingModule;

  beforeAll(async () => {
    // The worker's configuration is read from the environment, as in its process.
    Object.assign(process.env, s.stack.env);
    // Compiled, not initialised: no BullMQ worker starts in this process, the stack's worker runs the job.
    worker = await Test.createTestingModule({ imports: [WorkerModule.register(loadConfig())] }).compile();
  });

  afterAll(async () => {
    await worker?.close();
  });

  it('creates an instance that the worker then boots', async () => {
    const lives = worker.get(InstanceLifecycle);
    const created = await lives.create({ name: 'member-1', ...DEMO_INSTANCE }, { projectId: s.owner.projectId, userId: s.owner.userId });
    expect(created).toMatchObject({ status: 'BUILD', projectId: s.owner.projectId, name: 'member-1' });
    // Row and proxy host in one transaction with the job; the address comes with the job.
    expect(created.address).toBeNull();
    expect(await s.db.getRepository(Instance).existsBy({ id: created.id })).toBe(true);
    expect(await s.db.getRepository(ProxyHost).countBy({ instanceId: created.id })).toBe(1);

    const active = await waitForInstance(s.api, created.id);
    expect(active.status).toBe('ACTIVE');
    expect((await s.db.getRepository(Instance).findOneByOrFail({ id: created.id })).address).toBe(active.metadata.privateIp);
  });

  it('refuses as the api does, with a domain error naming the field', async () => {
    const lives = worker.get(InstanceLifecycle);
    await expect(lives.create({ name: 'member-x', ...DEMO_INSTANCE, image_id: 'no-such-image' }, { projectId: s.owner.projectId, userId: s.owner.userId })).rejects.toMatchObject({
      kind: 'invalid',
      message: 'image_id: image "no-such-image" does not exist',
    });
  });
});
