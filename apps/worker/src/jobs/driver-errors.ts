import { DriverError } from '@stratus/providers';
import { UnrecoverableError } from 'bullmq';

/**
 * The one place that decides what a driver failure means: retryable (and
 * unknown) errors go back to BullMQ for backoff; terminal ones record the
 * reason on the resource and stop retrying.
 */
export async function withDriverErrors<T>(step: () => Promise<T>, fail: (reason: string) => Promise<unknown>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof DriverError && err.terminal) {
      await fail(err.message);
      throw new UnrecoverableError(err.message);
    }
    throw err;
  }
}
