import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  validateSync,
} from 'class-validator';
import { resolve } from 'node:path';

const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
const toBool = ({ value }: { value: unknown }) =>
  value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : value;
const toList = ({ value }: { value: unknown }) =>
  typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : value;

/**
 * Every setting the processes read, validated once at start-up. Names are the
 * environment variables; defaults are the embedded single-machine setup.
 */
export class AppConfig {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @IsUrl({ protocols: ['postgres', 'postgresql'], require_tld: false })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/stratus';

  @IsUrl({ protocols: ['redis', 'rediss'], require_tld: false })
  REDIS_URL = 'redis://127.0.0.1:6379';

  /** Namespace for every BullMQ key, so two installations can share a Redis. */
  @Matches(/^[a-z0-9-]+$/)
  QUEUE_PREFIX = 'stratus';

  @IsString()
  DATA_DIR = resolve(process.cwd(), '.data');

  @IsString()
  API_HOST = '127.0.0.1';

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  API_PORT = 8080;

  /** Public base URL printed to users; derived from host and port when unset. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  PUBLIC_URL?: string;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  @Transform(toInt)
  @IsInt()
  @Min(1024)
  BODY_LIMIT_BYTES = 1_048_576;

  @Transform(toInt)
  @IsInt()
  @Min(2)
  @Max(1000)
  BODY_MAX_DEPTH = 32;

  // --- Bearer tokens on /api/cloud ---------------------------------------

  /** JWKS of the identity provider. Unset: the embedded key pair in DATA_DIR signs and verifies. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  AUTH_JWKS_URL?: string;

  @IsString()
  AUTH_ISSUER = 'stratus-local';

  @IsString()
  AUTH_AUDIENCE = 'stratus';

  @Transform(toList)
  @IsIn(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'], { each: true })
  AUTH_ALGORITHMS: string[] = ['RS256'];

  /** Claim that names the caller's project. */
  @IsString()
  AUTH_PROJECT_CLAIM = 'project_id';

  /** Endpoints SPEC.md marks public need no token unless this is true. */
  @Transform(toBool)
  @IsBoolean()
  PUBLIC_ENDPOINTS_REQUIRE_AUTH = false;

  // --- Provider ----------------------------------------------------------

  @IsIn(['local'])
  PROVIDER: 'local' = 'local';

  /** Loopback block the local provider hands out, one address per resource. */
  @Matches(/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}\/(1[6-9]|2[0-9])$/)
  LOCAL_ADDRESS_POOL = '127.77.0.0/16';

  /** Unprivileged system user that instance processes run as (when started as root). */
  @Matches(/^[a-z_][a-z0-9_-]{0,31}$/)
  LOCAL_RUN_USER = 'stratus-run';

  @Transform(toInt)
  @IsInt()
  @Min(1000)
  INSTANCE_BOOT_TIMEOUT_MS = 60_000;

  /** An instance still in BUILD this long after create is failed by the reconciler. */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  INSTANCE_BUILD_DEADLINE_MS = 15 * 60_000;

  // --- Worker ------------------------------------------------------------

  @Transform(toInt)
  @IsInt()
  @Min(1)
  WORKER_CONCURRENCY = 32;

  @Transform(toInt)
  @IsInt()
  @Min(200)
  RECONCILE_INTERVAL_MS = 5_000;

  @Transform(toInt)
  @IsInt()
  @Min(200)
  OUTBOX_RELAY_INTERVAL_MS = 2_000;

  get publicUrl(): string {
    return this.PUBLIC_URL ?? `http://${this.API_HOST}:${this.API_PORT}`;
  }
}

/** Reads and validates the environment; throws one message naming every bad setting. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const known = Object.keys(new AppConfig());
  const given = Object.fromEntries(
    Object.entries(env).filter(([k, v]) => known.includes(k) && v !== undefined && v !== ''),
  );
  const config = plainToInstance(AppConfig, given, { exposeDefaultValues: true });
  const errors = validateSync(config, { forbidUnknownValues: false });
  if (errors.length > 0) {
    const lines = errors.map(
      (e) => `  ${e.property}=${JSON.stringify(e.value)}: ${Object.values(e.constraints ?? {}).join('; ')}`,
    );
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  config.DATA_DIR = resolve(config.DATA_DIR);
  return config;
}
