import { DATABASE_TRANSITIONS } from '../status/transitions';
import { ENGINE_KINDS } from './database-engines';
import { ManagedDatabase } from './managed-database.entity';

/** Target of compareAndSet for managed database rows (all three engines, named in metrics by their collection). */
export const DATABASE_CAS = {
  entity: ManagedDatabase,
  transitions: DATABASE_TRANSITIONS,
  kind: 'database',
  kindBy: { column: 'engine', labels: ENGINE_KINDS },
};
