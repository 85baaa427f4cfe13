import { Job } from 'bullmq';
import { MaintenanceProcessor } from './maintenance.processor';

describe('MaintenanceProcessor', () => {
  /** A processor whose proxy hosts' sweep runs until the test lets it end; the others end at once. */
  function withSlowHostsSweep() {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const sweep = jest.fn(() => held);
    const quick = { sweep: jest.fn(async () => undefined) };
    const args = [{}, {}, quick, { run: jest.fn() }, quick, quick, quick, { sweep }, quick, quick, {}] as unknown as ConstructorParameters<typeof MaintenanceProcessor>;
    return { processor: new MaintenanceProcessor(...args), sweep, quick, release };
  }
  const job = (name: string, id: string) => ({ name, id, data: {}, attemptsMade: 0 }) as unknown as Job;

  it('skips a tick while the previous run of the same job is under way, and runs the next one after it', async () => {
    const { processor, sweep, release } = withSlowHostsSweep();
    const first = processor.process(job('hosts.reconcile', 'repeat:1'));
    await expect(processor.process(job('hosts.reconcile', 'repeat:2'))).resolves.toEqual({ skipped: 'the previous run is still under way' });
    expect(sweep).toHaveBeenCalledTimes(1);
    release();
    await first;
    await processor.process(job('hosts.reconcile', 'repeat:3'));
    expect(sweep).toHaveBeenCalledTimes(2);
  });

  it('skips a tick while the start-up sweep of the same job is under way', async () => {
    const { processor, sweep, release } = withSlowHostsSweep();
    const booting = processor.onApplicationBootstrap();
    while (sweep.mock.calls.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await expect(processor.process(job('hosts.reconcile', 'repeat:1'))).resolves.toEqual({ skipped: 'the previous run is still under way' });
    expect(sweep).toHaveBeenCalledTimes(1);
    release();
    await booting;
  });

  it('runs other jobs beside a long one', async () => {
    const { processor, quick, release } = withSlowHostsSweep();
    const first = processor.process(job('hosts.reconcile', 'repeat:1'));
    await processor.process(job('routes.reconcile', 'repeat:2'));
    expect(quick.sweep).toHaveBeenCalledTimes(1);
    release();
    await first;
  });

  it('runs the job again after a run that failed', async () => {
    const { processor, sweep } = withSlowHostsSweep();
    sweep.mockRejectedValueOnce(new Error('Octavia answered 503'));
    await expect(processor.process(job('hosts.reconcile', 'repeat:1'))).rejects.toThrow('503');
    sweep.mockResolvedValueOnce(undefined);
    await processor.process(job('hosts.reconcile', 'repeat:2'));
    expect(sweep).toHaveBeenCalledTimes(2);
  });
});
