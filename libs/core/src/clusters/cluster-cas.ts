import { CLUSTER_TRANSITIONS } from '../status/transitions';
import { Cluster } from './cluster.entity';

/** Target of compareAndSet for cluster rows. */
export const CLUSTER_CAS = { entity: Cluster, transitions: CLUSTER_TRANSITIONS, kind: 'cluster' };
