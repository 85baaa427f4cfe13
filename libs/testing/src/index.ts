export * from './test-env';
export * from './wait';
export * from './http-client';
export * from './stack';
export * from './tenants';
export * from './instances';
export * from './processes';
export * from './installation';
