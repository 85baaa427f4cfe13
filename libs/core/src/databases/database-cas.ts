import { DATABASE_TRANSITIONS } from '../status/transitions';

/** Target of compareAndSet for managed database rows (all three engines). */
export const DATABASE_CAS = { table: 'managed_databases', transitions: DATABASE_TRANSITIONS };
