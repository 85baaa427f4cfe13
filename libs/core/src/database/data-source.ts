import { DataSource } from 'typeorm';
import { loadConfig } from '../config/app.config';
import { dataSourceOptions } from './database.options';

/** Entry point for the TypeORM CLI (`npm run migration:generate -- <Name>`). */
export default new DataSource(dataSourceOptions(loadConfig()));
