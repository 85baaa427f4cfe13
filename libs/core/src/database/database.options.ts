import { join } from 'node:path';
import { DataSourceOptions } from 'typeorm';
import { AppConfig } from '../config/app.config';
import { ENTITIES } from './entities';

/** Schema changes only through generated migrations; never `synchronize`. */
export function dataSourceOptions(config: AppConfig, applicationName = 'stratus'): DataSourceOptions {
  return {
    type: 'postgres',
    url: config.DATABASE_URL,
    entities: ENTITIES,
    migrations: [join(__dirname, '..', 'migrations', '*.{js,ts}')],
    migrationsTableName: 'migrations',
    synchronize: false,
    logging: false,
    extra: { max: 20, application_name: applicationName },
  };
}
