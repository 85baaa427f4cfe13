/**
 * What a driver failure means for the caller. One handler in the worker maps
 * these to actions: `retryable` is thrown back to BullMQ for backoff; the
 * others are terminal and put the resource in error with the message.
 */
export type DriverErrorCode = 'retryable' | 'quota' | 'invalid' | 'not_found';

export class DriverError extends Error {
  constructor(
    readonly code: DriverErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DriverError';
  }

  get terminal(): boolean {
    return this.code !== 'retryable';
  }
}
