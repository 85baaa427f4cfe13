import { VOLUME_TRANSITIONS } from '../status/transitions';

/** Target of compareAndSet for volume rows. */
export const VOLUME_CAS = { table: 'volumes', transitions: VOLUME_TRANSITIONS };
