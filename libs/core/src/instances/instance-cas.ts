import { INSTANCE_TRANSITIONS } from '../status/transitions';

/** Target of compareAndSet for instance rows. */
export const INSTANCE_CAS = { table: 'instances', transitions: INSTANCE_TRANSITIONS };
