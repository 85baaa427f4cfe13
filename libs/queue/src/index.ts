export * from './queue-names';
export * from './job-catalog';
export * from './queue.module';
export * from './outbox.service';
export * from './redis-deadline';
