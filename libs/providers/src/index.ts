export * from './driver-error';
export * from './catalog.driver';
export * from './compute.driver';
export * from './providers.module';
export { LocalCatalog } from './local/local-catalog';
export { LocalImages } from './local/local-images';
export { INSTANCE_MARKER, scanInstanceLeaders } from './local/process-table';
