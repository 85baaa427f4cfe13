import { InstanceLifecycle, ProjectsService } from '@stratus/core';
import { QUEUES, resourceJobId } from '@stratus/queue';
import { DEMO_INSTANCE, useWorkerOnFake } from '@stratus/testing';
import { WorkerModule } from '../worker.module';

/*
 * Fair scheduling through the real queue: project A submits 200 instance
 * creates, then project B one. The queue is paused while they are submitted,
 * so all 201 wait at once and the order the worker takes them in is the
 * queue's alone (not how fast creates and jobs happened to interleave).
 * With one worker slot, B's instance must not wait behind A's whole burst.
 */
describe('fair scheduling of creates', () => {
  const w = useWorkerOnFake('fairness', (config) => WorkerModule.register(config), { env: { WORKER_CONCURRENCY: '1' } });
  const BURST = 200;

  it("one project's burst does not hold every slot: another project's create is served among the first", async () => {
    const lives = w.get(InstanceLifecycle);
    const queue = w.queue(QUEUES.instances);
    const b = await new ProjectsService(w.db, w.config).createProject('fairness-b');
    const principalB = { projectId: b.id, userId: 'user-b' };

    await queue.pause();
    const idsA: string[] = [];
    // Ten at a time: quick, and the order of A's creates does not matter here.
    for (let i = 0; i < BURST; i += 10) {
      const made = await Promise.all(Array.from({ length: 10 }, (_, j) => lives.create({ name: `a-${i + j}`, ...DEMO_INSTANCE }, w.principal)));
      idsA.push(...made.map((m) => m.id));
    }
    const instanceB = await lives.create({ name: 'b-0', ...DEMO_INSTANCE }, principalB);
    // Every create's job is queued (the direct enqueue is not awaited by create) before the worker may take one.
    const jobIdOf = (id: string) => resourceJobId('instance.create', id, 1);
    const waiting = async () => (await queue.getJobCounts('prioritized', 'waiting', 'paused')) as Record<string, number>;
    for (let i = 0; i < 600; i++) {
      const counts = await waiting();
      if ((counts.prioritized ?? 0) + (counts.waiting ?? 0) + (counts.paused ?? 0) >= BURST + 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    // The rank is kept on the outbox row, so the relay would queue each job just as the direct enqueue did.
    const rankOf = async (id: string) => (await w.db.query(`SELECT priority FROM outbox WHERE job_id = $1`, [jobIdOf(id)]))[0].priority;
    expect(await rankOf(instanceB.id)).toBe(1);
    expect(await rankOf(idsA[0])).toBeGreaterThanOrEqual(1);
    expect(await rankOf(idsA[BURST - 1])).toBeGreaterThan(BURST / 2);
    await queue.resume();
    await w.drained([QUEUES.instances], 180_000);

    const finished = new Map<string, number>();
    for (const id of [...idsA, instanceB.id]) {
      const job = await queue.getJob(jobIdOf(id));
      expect(job?.finishedOn).toEqual(expect.any(Number));
      finished.set(id, job!.finishedOn!);
    }
    const finishedB = finished.get(instanceB.id)!;
    const rankB = 1 + idsA.filter((id) => finished.get(id)! < finishedB).length;
    // FIFO would make it 201st; ranked by its project's backlog it is served next.
    expect(rankB).toBeLessThanOrEqual((BURST + 1) / 2);
    expect(rankB).toBeLessThanOrEqual(5);
  }, 300_000);
});
