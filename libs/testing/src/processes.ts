import { readlinkSync } from 'node:fs';
import { scanInstanceLeaders } from '@stratus/providers';

/** Instance process-group leaders whose working folder is under `dir`, by instance id. */
export function instanceLeadersUnder(dir: string): Map<string, number[]> {
  const result = new Map<string, number[]>();
  for (const [id, leaders] of scanInstanceLeaders()) {
    for (const leader of leaders) {
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${leader.pid}/cwd`);
      } catch {
        continue;
      }
      if (cwd.startsWith(dir)) result.set(id, [...(result.get(id) ?? []), leader.pid]);
    }
  }
  return result;
}

/** Ends every instance process a test run left under `dir` (only ours: matched by folder). */
export function killInstancesUnder(dir: string): number {
  let killed = 0;
  for (const pids of instanceLeadersUnder(dir).values()) {
    for (const pid of pids) {
      try {
        process.kill(-pid, 'SIGKILL');
        killed++;
      } catch {
        // gone already
      }
    }
  }
  return killed;
}
