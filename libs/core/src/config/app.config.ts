import { plainToInstance, Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsIP, IsOptional, IsString, IsUrl, Matches, Max, Min, validateSync } from 'class-validator';
import { resolve } from 'node:path';

const toInt = ({ value }: { value: unknown }) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value);
const toBool = ({ value }: { value: unknown }) => (value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : value);
const toList = ({ value }: { value: unknown }) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : value;

/** Every provider the registry knows by name, built or not. */
export const PROVIDER_NAMES = ['local', 'fake', 'openstack'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/**
 * Every setting the processes read, validated once at start-up. Names are the
 * environment variables; defaults are the embedded single-machine setup.
 */
export class AppConfig {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @IsUrl({ protocols: ['postgres', 'postgresql'], require_tld: false })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/stratus';

  /**
   * Connections each process keeps to PostgreSQL at most, and open at least.
   * Every api, worker and edge of every installation on one PostgreSQL adds
   * up against its max_connections (100 by default).
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  DATABASE_POOL_MAX = 20;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1000)
  DATABASE_POOL_MIN = 10;

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

  /**
   * Api processes sharing API_PORT (node:cluster: the first process holds
   * the socket and hands connections out). Each keeps its own pools, so
   * DATABASE_POOL_MAX counts once per process against max_connections.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(64)
  API_PROCESSES = 1;

  /**
   * How long a stopping api waits for the requests it holds, and a stopping
   * worker for the jobs it runs, before it exits anyway. A job cut off is
   * run again by another worker once its lock lapses.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(600_000)
  SHUTDOWN_TIMEOUT_MS = 10_000;

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

  /**
   * Which provider's drivers the worker runs (libs/providers, registry).
   * `openstack` drives a real cloud (the OS_* settings below). `fake` is
   * the test tree's in-memory provider.
   */
  @IsIn([...PROVIDER_NAMES])
  PROVIDER: ProviderName = 'local';

  // --- OpenStack provider (PROVIDER=openstack) ----------------------------
  // The names and meanings the OpenStack clients use (docs/operations.md):
  // OS_CLOUD picks a cloud of clouds.yaml; without it the OS_* variables
  // below describe the cloud. Empty means unset. Secrets among them are
  // never logged or put in an error message.

  /** The cloud of clouds.yaml to use. */
  @IsString()
  OS_CLOUD = '';

  /** Where clouds.yaml is; empty: ./clouds.yaml, ~/.config/openstack/clouds.yaml, /etc/openstack/clouds.yaml. */
  @IsString()
  OS_CLIENT_CONFIG_FILE = '';

  @IsString()
  OS_AUTH_URL = '';

  /** `password` (the default) or `v3applicationcredential`. */
  @IsIn(['', 'password', 'v3password', 'v3applicationcredential'])
  OS_AUTH_TYPE = '';

  @IsString()
  OS_USERNAME = '';

  @IsString()
  OS_USER_ID = '';

  @IsString()
  OS_PASSWORD = '';

  @IsString()
  OS_PROJECT_NAME = '';

  @IsString()
  OS_PROJECT_ID = '';

  @IsString()
  OS_USER_DOMAIN_NAME = '';

  @IsString()
  OS_PROJECT_DOMAIN_NAME = '';

  @IsString()
  OS_REGION_NAME = '';

  @IsIn(['', 'public', 'internal', 'admin'])
  OS_INTERFACE = '';

  @IsString()
  OS_APPLICATION_CREDENTIAL_ID = '';

  @IsString()
  OS_APPLICATION_CREDENTIAL_NAME = '';

  @IsString()
  OS_APPLICATION_CREDENTIAL_SECRET = '';

  /** The Neutron network (name or id) a server goes on when it has no port of its own; empty: the project's only network. */
  @IsString()
  OPENSTACK_NETWORK = '';

  /** The Debian 12 image (name or id) managed database servers boot from; their cloud-init installs the engine on it. */
  @IsString()
  OPENSTACK_DATABASE_IMAGE = 'debian-12';

  /** The Nova flavor (name or id) of a managed database server; empty: the smallest with 1 GiB of memory. */
  @IsString()
  OPENSTACK_DATABASE_FLAVOR = '';

  /**
   * Whether the control plane reaches the addresses of the servers it boots
   * (true on a real cloud: a database is ready once its engine answers there
   * with the credential applied). false is a simulation for a cloud without
   * a data path (Nova's fake virt driver boots nothing): a database is then
   * ready when Nova says ACTIVE, and a load balancer's member (a cluster's)
   * counts as up once Octavia took it, as its checks reach nothing. Only the
   * test cloud sets it.
   */
  @Transform(toBool)
  @IsBoolean()
  OPENSTACK_DATA_PATH = true;

  /** Loopback block the local provider hands out, one address per resource. */
  @Matches(/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}\/(1[6-9]|2[0-9])$/)
  LOCAL_ADDRESS_POOL = '127.77.0.0/16';

  @Transform(toInt)
  @IsInt()
  @Min(1000)
  INSTANCE_BOOT_TIMEOUT_MS = 60_000;

  /** An instance still in BUILD this long after create is failed by the reconciler. */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  INSTANCE_BUILD_DEADLINE_MS = 15 * 60_000;

  // --- Clusters ---------------------------------------------------------------

  /**
   * A cluster still CREATE_IN_PROGRESS this long after create ends CREATE_FAILED, its members removed;
   * a rolling update's new member not passing its check this long after it was created ends the update UPDATE_FAILED.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  CLUSTER_BUILD_DEADLINE_MS = 10 * 60_000;

  /**
   * How often the worker looks at every cluster that is not being built or
   * repaired (members lost, health changed). Process exits and the
   * balancer's health notices make it look at once; this is the floor.
   */
  @Transform(toInt)
  @IsInt()
  @Min(200)
  CLUSTER_RECONCILE_INTERVAL_MS = 2_000;

  /** How often the worker reads the CPU of every member of a cluster at rest and asks the scaling policy what to do. */
  @Transform(toInt)
  @IsInt()
  @Min(200)
  CLUSTER_AUTOSCALE_INTERVAL_MS = 5_000;

  /** How far back a cluster's average CPU looks when deciding to scale. */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  CLUSTER_SCALE_WINDOW_MS = 60_000;

  /** How long after a scaling action the next waits, so the new member's effect is measured first. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  CLUSTER_SCALE_COOLDOWN_MS = 180_000;

  // --- Managed databases (postgres, cache, analytics) -----------------------

  /** How long a new or restarted server may take to accept connections before it is an error. */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  DATABASE_START_TIMEOUT_MS = 60_000;

  /** How long POST .../reset-password waits for the server to take the new password before answering 202 (the change still happens). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  DATABASE_PASSWORD_RESET_WAIT_MS = 30_000;

  /**
   * A MySQL server binary (`mysqld`) for /v1/relational-databases creates
   * with engine mysql; unset, the usual system folders are searched, and a
   * host without one ends such a create in error naming this setting.
   */
  @IsOptional()
  @IsString()
  MYSQL_SERVER_BIN?: string;

  /** A database still provisioning this long after create is failed by the reconciler. */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  DATABASE_PROVISION_DEADLINE_MS = 10 * 60_000;

  /**
   * What each worker makes ahead of creates: started Redis servers (a cache
   * create claims one instead of waiting for a start) and copies of each
   * PostgreSQL template in use (a database create renames one instead of
   * copying ~970 files). 0 turns both off.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(8)
  DATABASE_SPARES = 1;

  /**
   * Whether the worker, when root on Debian, installs the system packages a
   * resource needs the first time one asks (ClickHouse, PostgreSQL 15 with
   * postgis or pgaudit, Redis), the resource staying `provisioning` with the
   * step in status_reason. false: such a create ends in `error` saying what
   * to install.
   */
  @Transform(toBool)
  @IsBoolean()
  SYSTEM_PACKAGES_INSTALL = true;

  /** Database jobs run at once per worker. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  DATABASE_WORKER_CONCURRENCY = 8;

  // --- Platform surface: volumes, gateway, DNS, edge ----------------------

  /** Address the edge's gateway HAProxy binds the route ports on. */
  @IsString()
  GATEWAY_HOST = '127.0.0.1';

  /** Ports gateway routes may listen on, `from-to` inclusive; the edge holds every one of them (at most GATEWAY_PORTS_MAX). */
  @Matches(/^\d{1,5}-\d{1,5}$/)
  GATEWAY_PORT_RANGE = '20000-20999';

  /** Networks a route's targetIp must be in (comma list of CIDRs); empty means the instance networks. */
  @Transform(toList)
  @Matches(/^[0-9a-fA-F:.]+\/\d{1,3}$/, { each: true })
  GATEWAY_ALLOWED_NETWORKS: string[] = [];

  /** How long POST /gateway/create waits for the edge to bind the listener. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  GATEWAY_BIND_TIMEOUT_MS = 5_000;

  /** The edge's HTTP listener, which routes proxy hosts by Host header: an address, since it is their listeners' (load balancers'). */
  @IsIP()
  EDGE_HTTP_HOST = '127.0.0.1';

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  EDGE_HTTP_PORT = 8081;

  /** Threads of each of the edge's HAProxy processes (gateway routes, proxy hosts); 0 means one per CPU, at most 8. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(64)
  EDGE_THREADS = 0;

  /** Full resync of the edge from PostgreSQL (changes also arrive at once by LISTEN/NOTIFY). */
  @Transform(toInt)
  @IsInt()
  @Min(200)
  EDGE_RESYNC_INTERVAL_MS = 5_000;

  /**
   * How often the edge reads its balancers' backend health from HAProxy and,
   * where it changed, writes it and says so (BALANCER_STATUS_CHANNEL): how
   * soon a cluster sees a member join or leave.
   */
  @Transform(toInt)
  @IsInt()
  @Min(50)
  EDGE_HEALTH_POLL_MS = 250;

  /**
   * Long polls (`?wait=`) one api process holds at once; one more is a 503
   * with Retry-After. A waiting poll holds no PostgreSQL connection, only a
   * socket and a little memory, so the bound is about file descriptors.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(100_000)
  LONG_POLL_MAX_WAITERS = 1_000;

  /**
   * How often an api process with long polls waiting reads the changes
   * committed since its last look (one indexed query on its own
   * connection; none while no poll waits): the most a change waits before
   * it wakes the polls it concerns.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000)
  CHANGE_FEED_POLL_MS = 10;

  /** Suffix of proxy host names; `*.localhost` resolves to loopback in curl and browsers without DNS. */
  @Matches(/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/)
  DNS_DOMAIN_SUFFIX = 'localhost';

  /** Largest volume, GiB. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  VOLUME_MAX_SIZE_GB = 1024;

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

  /**
   * A row whose state changed less than this long ago is still waiting for
   * the enqueue that follows its commit (or for the outbox relay): the
   * reconcilers leave its job alone until then, and re-enqueue it after.
   * How long a create whose job Redis lost waits before it is built.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  LOST_JOB_GRACE_MS = 30_000;

  /**
   * Where the worker answers GET /metrics (operator basic auth, as the api's
   * /metrics): `address:port`, loopback by default, or `off`. Several workers
   * on one host each need a port of their own; one that cannot bind it logs
   * so and works on without metrics.
   */
  @Matches(/^(off|\d{1,3}(\.\d{1,3}){3}:\d{1,5})$/)
  WORKER_METRICS_LISTEN = '127.0.0.1:9464';

  /** How long an `Idempotency-Key` and the answer it got are kept (24 h, as clients retry for a day at most). */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  IDEMPOTENCY_TTL_MS = 24 * 60 * 60_000;

  // --- Rate limits and quotas ---------------------------------------------

  /**
   * Requests each credential (an API key on /v1, a token's subject on
   * /api/cloud) may make per second, sustained, and at once after a quiet
   * spell (the burst). Counted in Redis, so they hold across api processes.
   * 0 turns the limit off. Generous by default: they stop a runaway script,
   * not a busy client.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  RATE_LIMIT_CREDENTIAL_PER_SECOND = 200;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_CREDENTIAL_BURST = 400;

  /** The same, for all the credentials of one project together. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  RATE_LIMIT_PROJECT_PER_SECOND = 500;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_PROJECT_BURST = 1000;

  /**
   * What a project may hold unless an operator set its own limit
   * (`cli quota set`): live instances, servers of each managed database
   * engine, GiB of volumes, gateway routes, proxy hosts (an instance's own
   * counts).
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  QUOTA_INSTANCES = 1000;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  QUOTA_DATABASES = 100;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  QUOTA_CACHES = 100;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  QUOTA_ANALYTICS = 100;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  QUOTA_RELATIONAL_DATABASES = 100;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  QUOTA_VOLUME_GB = 100_000;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  QUOTA_GATEWAY_ROUTES = 1000;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  QUOTA_PROXY_HOSTS = 2000;

  /** GATEWAY_PORT_RANGE as numbers. */
  get gatewayPorts(): { from: number; to: number } {
    const [from, to] = this.GATEWAY_PORT_RANGE.split('-').map(Number);
    return { from, to };
  }

  /**
   * Whether the edge is the load balancer of gateway routes and proxy hosts
   * (it binds GATEWAY_HOST's ports and the HTTP listener on this host, and
   * its heartbeat says so). Not on OpenStack: there Octavia's load
   * balancers are, on GATEWAY_HOST and EDGE_HTTP_HOST as addresses of the
   * project's network, and no edge runs.
   */
  get edgeBalances(): boolean {
    return this.PROVIDER !== 'openstack';
  }

  /**
   * Whether the provider's load balancers terminate TLS with a stored
   * certificate. Not Octavia's: TERMINATED_HTTPS needs the certificate in
   * Barbican, where the openstack provider keeps none.
   */
  get balancersTerminateTls(): boolean {
    return this.PROVIDER !== 'openstack';
  }

  /** Networks gateway targets may be in: the configured ones, else the instance networks. */
  get gatewayAllowedNetworks(): string[] {
    return this.GATEWAY_ALLOWED_NETWORKS.length ? this.GATEWAY_ALLOWED_NETWORKS : [this.LOCAL_ADDRESS_POOL];
  }

  /** WORKER_METRICS_LISTEN as host and port, or null when off. */
  get workerMetricsListen(): { host: string; port: number } | null {
    if (this.WORKER_METRICS_LISTEN === 'off') return null;
    const at = this.WORKER_METRICS_LISTEN.lastIndexOf(':');
    return { host: this.WORKER_METRICS_LISTEN.slice(0, at), port: Number(this.WORKER_METRICS_LISTEN.slice(at + 1)) };
  }

  get publicUrl(): string {
    return this.PUBLIC_URL ?? `http://${this.API_HOST}:${this.API_PORT}`;
  }
}

/**
 * The edge's HAProxy holds every port of the gateway range from its start,
 * about 100 MB and 1–2 s per 1000 ports (docs/decisions.md, Edge): a bound on
 * what a typo in the range can cost.
 */
export const GATEWAY_PORTS_MAX = 10_000;

/** Reads and validates the environment; throws one message naming every bad setting. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const known = Object.keys(new AppConfig());
  const given = Object.fromEntries(Object.entries(env).filter(([k, v]) => known.includes(k) && v !== undefined && v !== ''));
  const config = plainToInstance(AppConfig, given, { exposeDefaultValues: true });
  const errors = validateSync(config, { forbidUnknownValues: false });
  if (errors.length > 0) {
    const lines = errors.map((e) => `  ${e.property}=${JSON.stringify(e.value)}: ${Object.values(e.constraints ?? {}).join('; ')}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const ports = config.gatewayPorts;
  if (!(ports.from >= 1 && ports.from <= ports.to && ports.to <= 65535 && ports.to - ports.from < GATEWAY_PORTS_MAX)) {
    throw new Error(
      `Invalid configuration:\n  GATEWAY_PORT_RANGE=${JSON.stringify(config.GATEWAY_PORT_RANGE)}: must be from-to within 1-65535, at most ${GATEWAY_PORTS_MAX} ports`,
    );
  }
  config.DATA_DIR = resolve(config.DATA_DIR);
  return config;
}
