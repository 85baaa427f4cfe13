import { INSTANCE_TRANSITIONS } from '../status/transitions';
import { Instance } from './instance.entity';

/** Target of compareAndSet for instance rows. */
export const INSTANCE_CAS = { entity: Instance, transitions: INSTANCE_TRANSITIONS, kind: 'instance' };
