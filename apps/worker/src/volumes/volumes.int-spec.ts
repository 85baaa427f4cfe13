import { Instance, InstanceLifecycle, Volume, VolumeLifecycle } from '@stratus/core';
import { DriverError, VOLUME_DRIVER, VolumeDriver } from '@stratus/providers';
import { DEMO_INSTANCE, useWorkerOnFake, waitFor } from '@stratus/testing';
import { WorkerModule } from '../worker.module';
import { VolumesReconciler } from './volumes.reconciler';

/*
 * The volumes processor and reconciler as the worker runs them, in this
 * process on the fake provider: every change goes through VolumeLifecycle
 * (as the api's routes do) and every assertion waits for the queues to drain.
 */
describe('volumes on the fake provider', () => {
  const w = useWorkerOnFake('volumes', (config) => WorkerModule.register(config), { control: { bootMs: 100 } });
  const volumes = () => w.get(VolumeLifecycle);
  const driver = () => w.get<VolumeDriver>(VOLUME_DRIVER);
  const row = (id: string) => w.db.getRepository(Volume).findOneByOrFail({ id });

  async function activeInstance(name: string): Promise<Instance> {
    const created = await w.get(InstanceLifecycle).create({ name, ...DEMO_INSTANCE }, w.principal);
    await w.drained();
    const instance = await w.db.getRepository(Instance).findOneByOrFail({ id: created.id });
    expect(instance.status).toBe('ACTIVE');
    return instance;
  }

  it('creates, attaches, detaches and deletes a volume', async () => {
    const instance = await activeInstance('holder');
    const created = await volumes().create({ name: 'data', size: 2 }, w.principal);
    expect(created.status).toBe('creating');
    await w.drained();
    expect(await row(created.id)).toMatchObject({ status: 'available', statusReason: null, instanceId: null });
    expect(await driver().exists(created.id)).toBe(true);

    const attaching = await volumes().attach(created.id, instance.id, w.principal);
    expect(attaching.status).toBe('attaching');
    await w.drained();
    const attached = await row(created.id);
    expect(attached).toMatchObject({ status: 'in-use', instanceId: instance.id, attachmentId: attaching.attachmentId });
    expect(attached.attachedAt).toBeInstanceOf(Date);

    await volumes().detach(created.id, attaching.attachmentId!, w.principal);
    await w.drained();
    expect(await row(created.id)).toMatchObject({ status: 'available', instanceId: null, attachmentId: null, attachedAt: null });

    await volumes().delete(created.id, w.principal);
    await w.drained();
    expect(await w.db.getRepository(Volume).existsBy({ id: created.id })).toBe(false);
    expect(await driver().exists(created.id)).toBe(false);
  });

  it('a volume created with an instance is attached once the instance is laid out', async () => {
    const created = await w.get(InstanceLifecycle).create({ name: 'with-volume', ...DEMO_INSTANCE, volume: { name: 'boot-data', size: 1 } }, w.principal);
    await w.drained();
    const volume = await w.db.getRepository(Volume).findOneByOrFail({ instanceId: created.id });
    expect(volume).toMatchObject({ status: 'in-use', statusReason: null });
  });

  it('a create the provider refuses ends in error with the reason', async () => {
    w.control.failNext('volume.create', 'before', new DriverError('quota', 'no space left for 5 GiB'));
    const created = await volumes().create({ name: 'too-big', size: 5 }, w.principal);
    await w.drained();
    expect(await row(created.id)).toMatchObject({ status: 'error', statusReason: 'no space left for 5 GiB' });
    // An errored volume can still be deleted.
    await volumes().delete(created.id, w.principal);
    await w.drained();
    expect(await w.db.getRepository(Volume).existsBy({ id: created.id })).toBe(false);
  });

  it('an attach the provider refuses leaves the volume available with the reason', async () => {
    const instance = await activeInstance('refuser');
    const created = await volumes().create({ name: 'unattachable', size: 1 }, w.principal);
    await w.drained();
    w.control.failNext('volume.attach', 'before', new DriverError('invalid', 'the instance has no free device slot'));
    await volumes().attach(created.id, instance.id, w.principal);
    await w.drained();
    expect(await row(created.id)).toMatchObject({
      status: 'available',
      statusReason: 'attach failed: the instance has no free device slot',
      instanceId: null,
      attachmentId: null,
    });
  });

  it('the reconciler releases the attachment of an instance that was deleted', async () => {
    const instance = await activeInstance('going');
    const created = await volumes().create({ name: 'left-behind', size: 1 }, w.principal);
    await w.drained();
    await volumes().attach(created.id, instance.id, w.principal);
    await w.drained();
    expect((await row(created.id)).status).toBe('in-use');

    await w.get(InstanceLifecycle).delete(instance.id, w.principal);
    await w.drained();
    await waitFor('the instance row to be gone', async () => !(await w.db.getRepository(Instance).existsBy({ id: instance.id })), { timeoutMs: 30_000, intervalMs: 50 });

    await w.get(VolumesReconciler).sweep();
    expect(await row(created.id)).toMatchObject({
      status: 'available',
      instanceId: null,
      attachmentId: null,
      statusReason: `detached: instance ${instance.id} was deleted`,
    });
  });
});
