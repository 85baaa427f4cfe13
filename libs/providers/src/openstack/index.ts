export * from './openstack-client';
export * from './openstack-cloud';
export * from './openstack-errors';
export * from './openstack-resources';
export { OpenStackCatalogDriver } from './openstack-catalog.driver';
export { OpenStackComputeDriver, defaultNetwork } from './openstack-compute.driver';
export { OpenStackNetworkDriver } from './openstack-network.driver';
export { OpenStackVolumeDriver } from './openstack-volume.driver';
export { OpenStackProviderModule, OPENSTACK_CLIENT, openStackClient } from './openstack-provider.module';
