import { VOLUME_TRANSITIONS } from '../status/transitions';
import { Volume } from './volume.entity';

/** Target of compareAndSet for volume rows. */
export const VOLUME_CAS = { entity: Volume, transitions: VOLUME_TRANSITIONS, kind: 'volume' };
