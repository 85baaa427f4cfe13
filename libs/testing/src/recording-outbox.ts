import { JobOutbox, OutboxEntry } from '@stratus/core';

/** A job the outbox was asked to write: its name and payload. */
export interface WrittenJob {
  name: string;
  payload: unknown;
}

/**
 * An outbox that keeps the jobs it is asked to write, in order, and sends
 * none: for a spec of what a reconciler or autoscaler decides, without a
 * queue to read the decision back from.
 */
export function recordingOutbox(): { outbox: JobOutbox; written: WrittenJob[] } {
  const written: WrittenJob[] = [];
  const outbox: JobOutbox = {
    writeJob: async (_manager, name, _id, payload) => {
      written.push({ name, payload });
      return { id: written.length } as unknown as OutboxEntry;
    },
    jobEntry: () => {
      throw new Error('the recording outbox writes jobs only');
    },
    dispatch: () => undefined,
  };
  return { outbox, written };
}
