import { DatabaseDriver, DatabaseServerSpec, ObservedDatabaseServer } from '../databases.driver';
import { DriverError } from '../driver-error';

/**
 * The driver the openstack provider does not have yet (managed databases
 * on servers): whatever asks it to make something gets a terminal error
 * that says so; what only looks finds nothing, so the reconcilers run
 * without noise.
 */
function unbuilt(what: string): DriverError {
  return new DriverError('invalid', `${what} are not built on the openstack provider yet`);
}

export class OpenStackDatabaseDriver implements DatabaseDriver {
  async observe(_key: string): Promise<ObservedDatabaseServer | null> {
    return null;
  }
  async ensureRunning(_spec: DatabaseServerSpec): Promise<ObservedDatabaseServer> {
    throw unbuilt('managed databases');
  }
  async delete(_key: string): Promise<void> {}
}
