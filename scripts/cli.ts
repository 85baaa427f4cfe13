import 'reflect-metadata';
import { Command } from 'commander';
import {
  Certificate,
  CertificateVault,
  isForeignKeyViolation,
  loadConfig,
  migrate,
  mintToken,
  notifyEdge,
  OperatorCredential,
  parseCertificatePair,
  Project,
  ProjectQuotas,
  ProjectsService,
  QUOTA_NAMES,
} from '@stratus/core';
import { readFileSync } from 'node:fs';
import { DataSource } from 'typeorm';

/** Operator CLI: `npm run cli -- <command>`. Secrets are printed once and never stored. */
const program = new Command('stratus').description('Stratus operator commands');

async function withProjects<T>(fn: (projects: ProjectsService, ds: DataSource) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const dataSource = await migrate(config);
  try {
    return await fn(new ProjectsService(dataSource, config), dataSource);
  } finally {
    await dataSource.destroy();
  }
}

async function findProject(ds: DataSource, ref: string): Promise<Project> {
  const isUuid = /^[0-9a-f-]{36}$/i.test(ref);
  const project = await ds.getRepository(Project).findOneBy(isUuid ? { id: ref } : { name: ref });
  if (!project) throw new Error(`no project ${ref}`);
  return project;
}

program
  .command('project:create <name>')
  .description('create a project')
  .action((name: string) =>
    withProjects(async (projects) => {
      const p = await projects.createProject(name);
      console.log(JSON.stringify({ id: p.id, name: p.name }));
    }),
  );

program.command('project:list').action(() =>
  withProjects(async (_p, ds) => {
    for (const p of await ds.getRepository(Project).find({ order: { createdAt: 'ASC' } })) {
      console.log(`${p.id}  ${p.name}`);
    }
  }),
);

program
  .command('key:create <project>')
  .description('issue an API key for a project (name or id); printed once')
  .option('--user <user>', 'user the key acts as', 'admin')
  .option('--label <label>', 'note kept with the key', '')
  .action((ref: string, opts: { user: string; label: string }) =>
    withProjects(async (projects, ds) => {
      const project = await findProject(ds, ref);
      const { key, keyId } = await projects.issueApiKey(project.id, opts.user, opts.label);
      console.log(JSON.stringify({ key_id: keyId, api_key: key, project_id: project.id }));
    }),
  );

program.command('key:revoke <keyId>').action((keyId: string) =>
  withProjects(async (projects) => {
    if (!(await projects.revokeApiKey(keyId))) throw new Error(`no key ${keyId}`);
    console.log(`revoked ${keyId}`);
  }),
);

program
  .command('token:create <project>')
  .description('mint a Bearer token with the embedded identity provider')
  .option('--user <user>', 'subject of the token', 'admin')
  .option('--ttl <seconds>', 'lifetime in seconds', '3600')
  .action((ref: string, opts: { user: string; ttl: string }) =>
    withProjects(async (_p, ds) => {
      const config = loadConfig();
      if (config.AUTH_JWKS_URL) throw new Error('an external identity provider is configured (AUTH_JWKS_URL); it issues the tokens');
      const project = await findProject(ds, ref);
      console.log(mintToken(config, project.id, opts.user, Number(opts.ttl)));
    }),
  );

program
  .command('operator:password')
  .description('set a new password for the queue dashboard (user operator); printed once')
  .action(async () => {
    console.log(OperatorCredential.create(loadConfig().DATA_DIR, { onlyIfUnset: false }));
  });

program
  .command('certificate:add')
  .description('load a TLS certificate for gateway routes; prints its id (use it as certificate_id)')
  .requiredOption('--cert <file>', 'PEM certificate (chain) file')
  .requiredOption('--key <file>', 'PEM private key file (unencrypted); stored encrypted, never printed')
  .option('--name <name>', 'label', '')
  .action((opts: { cert: string; key: string; name: string }) =>
    withProjects(async (_p, ds) => {
      const certPem = readFileSync(opts.cert, 'utf8');
      const keyPem = readFileSync(opts.key, 'utf8');
      const parsed = parseCertificatePair(certPem, keyPem);
      const vault = CertificateVault.fromDataDir(loadConfig().DATA_DIR);
      const row = await ds.getRepository(Certificate).save({
        name: opts.name || parsed.subject,
        certPem: parsed.chainPem,
        keyEncrypted: vault.seal(keyPem),
        subject: parsed.subject,
        fingerprintSha256: parsed.fingerprintSha256,
        notAfter: parsed.notAfter,
      });
      console.log(JSON.stringify({ id: row.id, name: row.name, subject: row.subject, fingerprint_sha256: row.fingerprintSha256, not_after: row.notAfter.toISOString() }));
    }),
  );

program.command('certificate:list').action(() =>
  withProjects(async (_p, ds) => {
    for (const c of await ds.getRepository(Certificate).find({ order: { id: 'ASC' } })) {
      console.log(`${c.id}  ${c.name}  ${c.fingerprintSha256}  until ${c.notAfter.toISOString()}`);
    }
  }),
);

program
  .command('certificate:remove <id>')
  .description('remove a certificate no route uses')
  .action((id: string) =>
    withProjects(async (_p, ds) => {
      try {
        await ds.transaction(async (m) => {
          const result = await m.getRepository(Certificate).delete({ id: Number(id) });
          if (!result.affected) throw new Error(`no certificate ${id}`);
          await notifyEdge(m, 'certificates');
        });
      } catch (err) {
        // The database refuses while a route names it, however recent the route.
        if (!isForeignKeyViolation(err)) throw err;
        const [{ ports }] = await ds.query('SELECT array_agg(port ORDER BY port) AS ports FROM gateway_routes WHERE certificate_id = $1', [Number(id)]);
        throw new Error(`certificate ${id} is used by the routes on port(s) ${(ports ?? []).join(', ')}`, { cause: err });
      }
      console.log(`removed certificate ${id}`);
    }),
  );

program
  .command('quota:list <project>')
  .description("a project's quotas: limit (its own or the default) and usage now")
  .action((ref: string) =>
    withProjects(async (_p, ds) => {
      const project = await findProject(ds, ref);
      for (const q of await new ProjectQuotas(ds, loadConfig()).usage(project.id)) {
        console.log(`${q.quota.padEnd(15)} ${String(q.used).padStart(8)} of ${q.limit}${q.custom ? '' : ' (default)'}`);
      }
    }),
  );

program
  .command('quota:set <project> <quota> <limit>')
  .description(`set a project's own limit for one quota (${QUOTA_NAMES.join(', ')}); "default" returns it to the configured default`)
  .action((ref: string, quota: string, limit: string) =>
    withProjects(async (_p, ds) => {
      const project = await findProject(ds, ref);
      if (limit !== 'default' && !/^\d+$/.test(limit)) throw new Error(`limit ${JSON.stringify(limit)}: a whole number, 0 or more, or "default"`);
      await new ProjectQuotas(ds, loadConfig()).setLimit(project.id, quota, limit === 'default' ? null : Number(limit));
      console.log(JSON.stringify({ project_id: project.id, quota, limit: limit === 'default' ? 'default' : Number(limit) }));
    }),
  );

program.parseAsync().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
