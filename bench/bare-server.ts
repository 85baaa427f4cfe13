/**
 * The baseline of api-throughput.bench.ts, run by it as a child process: bare
 * Fastify + pg (+ BullMQ for the enqueue), no NestJS, no TypeORM, no
 * validation pipe, no request logging. For each benchmarked request it does
 * the same database and queue work as the real API, with the same SQL text:
 *
 *   every request   API-key lookup by key id in api_keys + HMAC-SHA256 check
 *                   (ProjectsService.verifyApiKey)
 *   GET /v1/flavors keyset page on flavors (CatalogService.flavors, no cursor)
 *   POST /v1/instances
 *                   image, flavor, network, keypair and default security
 *                   group lookups in parallel (CatalogLookups.require*);
 *                   one transaction: the existence check TypeORM's save()
 *                   makes, instance insert (no address: the worker has the
 *                   network driver assign it),
 *                   outbox insert (OutboxService.write), the generated proxy
 *                   host (ProxyHostLifecycle.insert: insert, refreshInstanceDomains,
 *                   its `host.apply` outbox row for the worker's listener),
 *                   the re-read of the row; after commit, not awaited, one
 *                   addBulk per queue (instances and routes) and the outbox
 *                   dispatched_at update (OutboxService.dispatch). See
 *                   InstanceLifecycle.create.
 *
 * The statements TypeORM generates were captured from its query log (TypeORM
 * 0.3, logging: ['query'] on a DataSource given to the services), and the
 * hot reads' (libs/core/src/database/hot-queries.ts: the flavors page and the
 * catalog lookups) printed from selectAll and hotFindOne; all are copied verbatim
 * below; refreshInstanceDomains and
 * ApiKeyHasher are the project's own code, imported by relative path so that
 * no framework module is loaded here. If the services change their queries,
 * update these: the bench compares what one create of each server leaves in
 * the database and stops when they differ.
 *
 * Configuration comes from the environment the bench sets: DATABASE_URL,
 * DATA_DIR (for the API-key pepper), QUEUE_PREFIX, BENCH_REDIS (JSON
 * connection options), INSTANCE_BUILD_DEADLINE_MS, DNS_DOMAIN_SUFFIX. It listens on a free
 * loopback port and reports it to the parent over IPC.
 */
import { Queue } from 'bullmq';
import Fastify, { FastifyReply } from 'fastify';
import { randomUUID } from 'node:crypto';
import { Pool, PoolClient } from 'pg';
import { EntityManager } from 'typeorm';
import { refreshInstanceDomains } from '../libs/core/src/dns/instance-domains';
import { generatedLabel } from '../libs/core/src/instances/instance.lifecycle';
import { ApiKeyHasher } from '../libs/core/src/secrets/api-key';
import { API_KEY_CACHE_TTL_MS } from '../libs/core/src/projects/projects.service';
import { DEFAULT_JOB_OPTIONS, JOB_QUEUE, resourceJobId } from '../libs/queue/src/job-catalog';

const SQL = {
  apiKeyByKeyId:
    'SELECT "ApiKey"."id" AS "ApiKey_id", "ApiKey"."key_id" AS "ApiKey_key_id", "ApiKey"."secret_hash" AS "ApiKey_secret_hash", "ApiKey"."project_id" AS "ApiKey_project_id", "ApiKey"."user_id" AS "ApiKey_user_id", "ApiKey"."label" AS "ApiKey_label", "ApiKey"."created_at" AS "ApiKey_created_at", "ApiKey"."revoked_at" AS "ApiKey_revoked_at" FROM "api_keys" "ApiKey" WHERE (("ApiKey"."key_id" = $1)) LIMIT 1',
  flavorsFirstPage:
    'SELECT "id" AS "id", "name" AS "name", "vcpus" AS "vcpus", "ram_mb" AS "ramMb", "disk_gb" AS "diskGb" FROM "flavors" WHERE ($1::text IS NULL OR "id" > $1) ORDER BY "id" LIMIT $2',
  imageById: 'SELECT "id" AS "id", "name" AS "name", "description" AS "description" FROM "images" WHERE "id" = $1 LIMIT 1',
  flavorByIdOrName: 'SELECT "id" AS "id", "name" AS "name", "vcpus" AS "vcpus", "ram_mb" AS "ramMb", "disk_gb" AS "diskGb" FROM "flavors" WHERE "id" = $1 OR "name" = $2 LIMIT 1',
  networkById: 'SELECT "id" AS "id", "name" AS "name", "cidr" AS "cidr" FROM "networks" WHERE "id" = $1 LIMIT 1',
  keypairByName: 'SELECT "name" AS "name", "fingerprint" AS "fingerprint" FROM "keypairs" WHERE "name" = $1 LIMIT 1',
  securityGroupByName: 'SELECT "id" AS "id", "name" AS "name", "description" AS "description", "rules" AS "rules" FROM "security_groups" WHERE "name" = $1 LIMIT 1',
  instanceExists:
    'SELECT "Instance"."id" AS "Instance_id", "Instance"."project_id" AS "Instance_project_id", "Instance"."user_id" AS "Instance_user_id", "Instance"."name" AS "Instance_name", "Instance"."image_id" AS "Instance_image_id", "Instance"."image_name" AS "Instance_image_name", "Instance"."flavor_id" AS "Instance_flavor_id", "Instance"."network_id" AS "Instance_network_id", "Instance"."keypair_name" AS "Instance_keypair_name", "Instance"."security_group_ids" AS "Instance_security_group_ids", "Instance"."port" AS "Instance_port", "Instance"."dname" AS "Instance_dname", "Instance"."user_data" AS "Instance_user_data", "Instance"."address" AS "Instance_address", "Instance"."status" AS "Instance_status", "Instance"."status_reason" AS "Instance_status_reason", "Instance"."metadata" AS "Instance_metadata", "Instance"."generation" AS "Instance_generation", "Instance"."build_deadline" AS "Instance_build_deadline", "Instance"."created_at" AS "Instance_created_at", "Instance"."updated_at" AS "Instance_updated_at" FROM "instances" "Instance" WHERE "Instance"."id" IN ($1)',
  insertInstance:
    'INSERT INTO "instances"("id", "project_id", "user_id", "name", "image_id", "image_name", "flavor_id", "network_id", "keypair_name", "security_group_ids", "port", "dname", "user_data", "address", "status", "status_reason", "metadata", "generation", "build_deadline", "created_at", "updated_at") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, DEFAULT, DEFAULT) RETURNING "id", "port", "metadata", "generation", "created_at", "updated_at"',
  insertOutbox: 'INSERT INTO "outbox"("job_name", "job_id", "payload", "created_at", "dispatched_at") VALUES ($1, $2, $3, DEFAULT, DEFAULT) RETURNING "id", "created_at"',
  insertProxyHost:
    'INSERT INTO "proxy_hosts"("id", "hostname", "project_id", "user_id", "instance_id", "forward_port", "generation", "created_at", "updated_at") VALUES (DEFAULT, $1, $2, $3, $4, $5, $6, DEFAULT, DEFAULT) RETURNING "id", "generation", "created_at", "updated_at"',
  instanceById:
    'SELECT "Instance"."id" AS "Instance_id", "Instance"."project_id" AS "Instance_project_id", "Instance"."user_id" AS "Instance_user_id", "Instance"."name" AS "Instance_name", "Instance"."image_id" AS "Instance_image_id", "Instance"."image_name" AS "Instance_image_name", "Instance"."flavor_id" AS "Instance_flavor_id", "Instance"."network_id" AS "Instance_network_id", "Instance"."keypair_name" AS "Instance_keypair_name", "Instance"."security_group_ids" AS "Instance_security_group_ids", "Instance"."port" AS "Instance_port", "Instance"."dname" AS "Instance_dname", "Instance"."user_data" AS "Instance_user_data", "Instance"."address" AS "Instance_address", "Instance"."status" AS "Instance_status", "Instance"."status_reason" AS "Instance_status_reason", "Instance"."metadata" AS "Instance_metadata", "Instance"."generation" AS "Instance_generation", "Instance"."build_deadline" AS "Instance_build_deadline", "Instance"."created_at" AS "Instance_created_at", "Instance"."updated_at" AS "Instance_updated_at" FROM "instances" "Instance" WHERE (("Instance"."id" = $1)) LIMIT 1',
  markDispatched: 'UPDATE "outbox" SET "dispatched_at" = $1 WHERE "id" IN ($2, $3)',
};

/** InstanceLifecycle's generated name, under the DNS suffix. */
function generatedHostname(name: string, id: string): string {
  return `${generatedLabel(name, id)}.${dnsSuffix}`;
}

interface Principal {
  projectId: string;
  userId: string;
}

const env = process.env;
const pool = new Pool({ connectionString: env.DATABASE_URL, max: 20, application_name: 'stratus-bench-bare' });
const hasher = ApiKeyHasher.fromDataDir(env.DATA_DIR!);
const queueOf = (name: string) => new Queue(name, { connection: JSON.parse(env.BENCH_REDIS!), prefix: env.QUEUE_PREFIX, defaultJobOptions: DEFAULT_JOB_OPTIONS });
const queue = queueOf(JOB_QUEUE['instance.create']);
const routesQueue = queueOf(JOB_QUEUE['host.apply']);
const buildDeadlineMs = Number(env.INSTANCE_BUILD_DEADLINE_MS ?? 15 * 60_000);
const dnsSuffix = env.DNS_DOMAIN_SUFFIX ?? 'localhost';

async function one<T = Record<string, any>>(sql: string, params: unknown[] = []): Promise<T | undefined> {
  return (await pool.query(sql, params)).rows[0] as T | undefined;
}

// The same verified-key cache as ProjectsService (TTL API_KEY_CACHE_TTL_MS, HMAC still checked every
// time), so both servers do the same database work per request.
const verified = new Map<string, { row: any; expiresAt: number }>();

async function authenticate(presented: unknown, reply: FastifyReply): Promise<Principal | null> {
  const parsed = typeof presented === 'string' ? ApiKeyHasher.parse(presented) : null;
  let row = parsed ? verified.get(parsed.keyId)?.row : undefined;
  if (parsed && (!row || verified.get(parsed.keyId)!.expiresAt <= Date.now())) {
    row = await one(SQL.apiKeyByKeyId, [parsed.keyId]);
    if (row && !row.ApiKey_revoked_at) verified.set(parsed.keyId, { row, expiresAt: Date.now() + API_KEY_CACHE_TTL_MS });
  }
  if (!parsed || !row || row.ApiKey_revoked_at || !hasher.verify(parsed.secret, row.ApiKey_secret_hash)) {
    reply.code(401).send({ error: { code: 'unauthorized', message: 'invalid API key' } });
    return null;
  }
  return { projectId: row.ApiKey_project_id, userId: row.ApiKey_user_id };
}

function badRequest(reply: FastifyReply, message: string) {
  return reply.code(400).send({ error: { code: 'bad_request', message } });
}

const app = Fastify({ logger: false });

app.get('/v1/flavors', async (req, reply) => {
  if (!(await authenticate(req.headers['x-api-key'], reply))) return reply;
  const limit = 20;
  const rows = (await pool.query(SQL.flavorsFirstPage, [null, limit + 1])).rows;
  const items = rows.slice(0, limit);
  const more = rows.length > limit;
  return {
    items: items.map((f) => ({ id: f.id, name: f.name, vcpus: f.vcpus, ram_mb: f.ramMb, disk_gb: f.diskGb })),
    next_cursor: more ? Buffer.from(JSON.stringify({ k: items[items.length - 1].id })).toString('base64url') : null,
  };
});

app.post('/v1/instances', async (req, reply) => {
  const principal = await authenticate(req.headers['x-api-key'], reply);
  if (!principal) return reply;
  const dto = (req.body ?? {}) as Record<string, any>;
  for (const field of ['name', 'image_id', 'flavor_id', 'network_id', 'keypair_name']) {
    if (typeof dto[field] !== 'string' || dto[field] === '') return badRequest(reply, `${field}: must be a string`);
  }
  const [image, flavor, network, keypair, group] = await Promise.all([
    one(SQL.imageById, [dto.image_id]),
    one(SQL.flavorByIdOrName, [dto.flavor_id, dto.flavor_id]),
    one(SQL.networkById, [dto.network_id]),
    one(SQL.keypairByName, [dto.keypair_name]),
    one(SQL.securityGroupByName, ['default']),
  ]);
  if (!image || !flavor || !network || !keypair) return badRequest(reply, 'unknown image, flavor, network or keypair');
  if (!group) return badRequest(reply, 'security_group_names[0]: security group "default" does not exist');

  const port = dto.port === undefined ? 3000 : Number(dto.port);
  const id = randomUUID();
  const hostname = generatedHostname(dto.name, id);
  const jobId = resourceJobId('instance.create', id, 1);
  const payload = { instanceId: id, generation: 1 };
  const client: PoolClient = await pool.connect();
  let row: Record<string, any>;
  let outboxIds: [string, string];
  let hostJob: { id: string; payload: { proxyHostId: string; generation: number } };
  try {
    await client.query('START TRANSACTION');
    const manager = { query: async (sql: string, params: unknown[]) => (await client.query(sql, params)).rows };
    await client.query(SQL.instanceExists, [id]);
    await client.query(SQL.insertInstance, [
      id,
      principal.projectId,
      principal.userId,
      dto.name,
      image.id,
      dto.imageName ?? null,
      flavor.id,
      network.id,
      dto.keypair_name,
      [group.id],
      port,
      dto.dname ?? null,
      dto.user_data ?? null,
      null,
      'BUILD',
      null,
      JSON.stringify({ isPublic: 'false', enableSSH: 'false' }),
      1,
      new Date(Date.now() + buildDeadlineMs),
    ]);
    const instanceOutbox = (await client.query(SQL.insertOutbox, ['instance.create', jobId, JSON.stringify(payload)])).rows[0].id;
    const host = (await client.query(SQL.insertProxyHost, [hostname, principal.projectId, principal.userId, id, port, 1])).rows[0];
    await refreshInstanceDomains(manager as unknown as EntityManager, id);
    hostJob = { id: resourceJobId('host.apply', host.id, host.generation), payload: { proxyHostId: host.id, generation: host.generation } };
    const hostOutbox = (await client.query(SQL.insertOutbox, ['host.apply', hostJob.id, JSON.stringify(hostJob.payload)])).rows[0].id;
    outboxIds = [instanceOutbox, hostOutbox];
    row = (await client.query(SQL.instanceById, [id])).rows[0];
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  // As OutboxService.dispatch: best effort and not awaited, the relay would retry.
  void Promise.all([
    queue.addBulk([{ name: 'instance.create', data: payload, opts: { jobId } }]),
    routesQueue.addBulk([{ name: 'host.apply', data: hostJob.payload, opts: { jobId: hostJob.id } }]),
  ])
    .then(() => pool.query(SQL.markDispatched, [new Date(), ...outboxIds]))
    .catch(() => undefined);
  reply.code(202);
  return {
    id,
    name: dto.name,
    status: 'building',
    image_id: image.id,
    flavor_id: flavor.id,
    network_id: network.id,
    created_at: (row.Instance_created_at as Date).toISOString(),
  };
});

async function shutdown(): Promise<void> {
  await app.close().catch(() => undefined);
  await queue.close().catch(() => undefined);
  await routesQueue.close().catch(() => undefined);
  await pool.end().catch(() => undefined);
  process.exit(0);
}

process.on('SIGTERM', () => void shutdown());
process.on('disconnect', () => void shutdown());

app
  .listen({ host: '127.0.0.1', port: 0 })
  .then(() => {
    const address = app.server.address();
    process.send?.({ ready: true, port: typeof address === 'object' && address ? address.port : 0 });
  })
  .catch((err) => {
    console.error(err);
    process.exit(1);
  });
