import { DATABASE_TRANSITIONS } from '../status/transitions';
import { ManagedDatabase } from './managed-database.entity';

/** Target of compareAndSet for managed database rows (all three engines). */
export const DATABASE_CAS = { entity: ManagedDatabase, transitions: DATABASE_TRANSITIONS };
