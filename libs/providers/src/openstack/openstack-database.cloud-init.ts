import { HA_MEMBERS, sqlExtensionName, PRELOADED_EXTENSIONS } from '@stratus/core';
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { DatabaseServerSpec, ETCD_CLIENT_PORT, ETCD_PEER_PORT, PATRONI_REST_PORT } from '../databases.driver';
import { PATRONI_BASEBACKUP, patroniAuthentication, patroniDcs, patroniRestApi } from '../patroni';
import { DriverError } from '../driver-error';

/**
 * The cloud-init of a managed database server on OpenStack: a pure function
 * of the spec, so what a server is booted with can be read (and tested)
 * without a cloud. The image is Debian 12 (bookworm); each engine comes from
 * packages: PostgreSQL of the requested major from PGDG, Redis from Debian,
 * ClickHouse from its own repository.
 *
 * user_data is readable by the cloud's admins and by anything on the server
 * through the metadata service, so it holds the credential only as the
 * engine's verifier (a SCRAM-SHA-256 verifier, or the SHA-256 hex that
 * Redis' ACL and ClickHouse's users file take), never the password. The
 * members of an ha PostgreSQL also find there the secrets they share with
 * one another (HaMemberSecrets), which no client uses: they hold them
 * anyway, and the cloud's admins could read their disks as well.
 *
 * A reset password never re-renders this: user_data cannot change after
 * boot. The server's `stratus_verifier` metadata item carries the verifier
 * in force; a timer on the server reads it from the metadata service and
 * applies it when it changes. Each time the engine is configured with a
 * verifier, the server writes `stratus: ready <fingerprint>` to its console,
 * which the driver reads back through Nova.
 */

/** Nova metadata key of the verifier the server must apply (at most 255 bytes, as Nova allows). */
export const VERIFIER_METADATA_KEY = 'stratus_verifier';

/** The distribution the rendered scripts are written for. */
export const DATABASE_IMAGE_RELEASE = 'bookworm';

/** PostgreSQL majors PGDG builds for bookworm. */
const POSTGRES_MAJORS = ['14', '15', '16'];

/** Extensions that are not in the server package of PGDG, by the package that holds them. */
const POSTGRES_EXTENSION_PACKAGES: Record<string, (major: string) => string> = {
  pgvector: (v) => `postgresql-${v}-pgvector`,
  postgis: (v) => `postgresql-${v}-postgis-3`,
  pgaudit: (v) => `postgresql-${v}-pgaudit`,
};

/** The shape each engine's verifier must have (POSIX ERE too: the server checks what the metadata holds with the same pattern). */
const VERIFIER_FORMS: Record<string, RegExp> = {
  postgres: /^SCRAM-SHA-256\$[0-9]+:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/,
  redis: /^[0-9a-f]{64}$/,
  clickhouse: /^[0-9a-f]{64}$/,
};

/** Names the scripts put in SQL, XML and shell: what the API already allows, checked again where they are written. */
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** What a console line says once the server took a verifier: its first 16 hex digits of SHA-256 (says nothing of the password). */
export function verifierFingerprint(verifier: string): string {
  return createHash('sha256').update(verifier).digest('hex').slice(0, 16);
}

/** The console line of a server that is ready with this verifier. */
export function readyLine(verifier: string): string {
  return `stratus: ready ${verifierFingerprint(verifier)}`;
}

/**
 * Why this spec cannot be a server on OpenStack (an engine, a version, HA),
 * in words for status_reason; null when it can.
 */
export function unsupported(spec: DatabaseServerSpec): string | null {
  if (spec.ha && spec.engine !== 'postgres') return `high availability (ha: true) of ${spec.engine} is not built on the openstack provider: create the database without ha`;
  if (spec.ha && spec.memberAddresses.length !== HA_MEMBERS) return `high availability needs ${HA_MEMBERS} member addresses, got ${spec.memberAddresses.length}`;
  switch (spec.engine) {
    case 'postgres':
      return POSTGRES_MAJORS.includes(spec.version ?? '') ? null : `PostgreSQL ${spec.version} is not built by PGDG for Debian 12: choose one of ${POSTGRES_MAJORS.join(', ')}`;
    case 'redis':
      return spec.version === '7' ? null : `Redis ${spec.version} is not packaged for Debian 12, which has Redis 7 only`;
    case 'clickhouse':
      return null;
    default:
      return `${spec.engine} servers are not built on the openstack provider yet`;
  }
}

/** The `#cloud-config` of a single server; a DriverError (invalid) for a spec it cannot render. */
export function renderDatabaseCloudInit(spec: DatabaseServerSpec): string {
  checkRenderable(spec);
  if (spec.ha) throw new DriverError('invalid', `${spec.key} is ha: each member has a cloud-init of its own`);
  return cloudConfig(spec, `Database server ${spec.key}`, [
    { path: '/etc/stratus/database.env', mode: '0600', content: environment(spec) },
    ...credentialFiles(spec),
    { path: '/usr/local/sbin/stratus-database-setup', mode: '0700', content: setupScript(spec) },
    { path: '/usr/local/sbin/stratus-credentials', mode: '0700', content: credentialsScript(spec) },
  ]);
}

/**
 * The `#cloud-config` of member `n` of an ha PostgreSQL: etcd (one of
 * three, on the member addresses) and Patroni over PostgreSQL of the
 * requested major. `secrets` are what the members share and no client
 * ever uses (Patroni's superuser, replication, rewind, REST API): the user's
 * credential is the verifier, as for a single server, applied by whichever
 * member is the primary.
 */
export function renderHaMemberCloudInit(spec: DatabaseServerSpec, n: number, secrets: HaMemberSecrets): string {
  checkRenderable(spec);
  if (!spec.ha || !spec.memberAddresses[n]) throw new DriverError('invalid', `${spec.key} has no ha member ${n}`);
  return cloudConfig(spec, `Member ${n} of the ha database ${spec.key}`, [
    { path: '/etc/stratus/database.env', mode: '0600', content: environment(spec, n) },
    ...credentialFiles(spec),
    { path: '/etc/stratus/etcd.env', mode: '0600', content: etcdEnvironment(spec, n) },
    { path: '/etc/stratus/patroni.yml', mode: '0600', content: patroniConfig(spec, n, secrets) },
    { path: '/usr/local/sbin/stratus-database-setup', mode: '0700', content: haSetupScript(spec) },
    { path: '/usr/local/sbin/stratus-credentials', mode: '0700', content: haCredentialsScript(spec) },
  ]);
}

/** What the members of an ha PostgreSQL share among themselves; no client and no control-plane record holds them. */
export interface HaMemberSecrets {
  superuser: string;
  replication: string;
  /** Of the role pg_rewind connects with when a former primary rejoins (no superuser over the network). */
  rewind: string;
  restApi: string;
}

/** The checks every rendering makes first: a spec it can build, a verifier of the engine's form, plain names. */
function checkRenderable(spec: DatabaseServerSpec): void {
  const refused = unsupported(spec);
  if (refused) throw new DriverError('invalid', refused);
  const form = VERIFIER_FORMS[spec.engine];
  if (!form.test(spec.passwordVerifier)) throw new DriverError('invalid', `the password verifier of ${spec.key} is not in the form ${spec.engine} takes`);
  // A cache has neither (its one user is Redis' default); the others need both.
  const names =
    spec.engine === 'redis'
      ? []
      : ([
          ['database name', spec.dbName],
          ['user name', spec.dbUser],
        ] as const);
  for (const [what, name] of names) {
    if (!name || !IDENTIFIER.test(name)) throw new DriverError('invalid', `the ${what} of ${spec.key} is not a plain lowercase identifier`);
  }
  for (const address of spec.memberAddresses)
    if (isIP(address) === 0) throw new DriverError('invalid', `member address ${JSON.stringify(address)} of ${spec.key} is not an address`);
}

interface WrittenFile {
  path: string;
  mode: string;
  content: string;
}

/** The verifier of first boot and the timer that applies the one in the metadata: every server's. */
function credentialFiles(spec: DatabaseServerSpec): WrittenFile[] {
  return [
    // The verifier the server was booted with: used when the metadata service cannot be reached.
    { path: '/etc/stratus/verifier', mode: '0600', content: `${spec.passwordVerifier}\n` },
    { path: '/etc/systemd/system/stratus-credentials.service', mode: '0644', content: CREDENTIALS_SERVICE },
    { path: '/etc/systemd/system/stratus-credentials.timer', mode: '0644', content: CREDENTIALS_TIMER },
  ];
}

function cloudConfig(spec: DatabaseServerSpec, what: string, files: WrittenFile[]): string {
  const lines = [
    '#cloud-config',
    `# ${what}, written by the Stratus control plane. The user's credential appears only as a verifier.`,
    'package_update: true',
    'packages: [ca-certificates, curl, gnupg, python3]',
    'write_files:',
    ...files.flatMap((f) => [`  - path: ${f.path}`, `    owner: root:root`, `    permissions: '${f.mode}'`, `    content: ${JSON.stringify(f.content)}`]),
    'runcmd:',
    '  - [/usr/local/sbin/stratus-database-setup]',
    '',
  ];
  return lines.join('\n');
}

/** One shell word, single-quoted. */
function sh(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The server's settings for its scripts; a member's also its own address and name. */
function environment(spec: DatabaseServerSpec, member?: number): string {
  const vars: Record<string, string> = {
    KEY: spec.key,
    ENGINE: spec.engine,
    VERSION: spec.version ?? '',
    ADDRESS: spec.address,
    PORT: String(spec.port),
    DB_NAME: spec.dbName ?? '',
    DB_USER: spec.dbUser ?? '',
    SUPERUSER: spec.superuser ? 'yes' : 'no',
    EXTENSIONS: spec.extensions.map(sqlExtensionName).join(' '),
    ...(member === undefined ? {} : { MEMBER_ADDRESS: spec.memberAddresses[member], MEMBER_NAME: memberName(member) }),
  };
  return Object.entries(vars)
    .map(([k, v]) => `${k}=${sh(v)}`)
    .join('\n')
    .concat('\n');
}

/** A member's name in etcd and Patroni. */
function memberName(n: number): string {
  return `member-${n}`;
}

const CREDENTIALS_SERVICE = `[Unit]
Description=Applies the database credential from the server's metadata
After=network-online.target

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/stratus-credentials
`;

const CREDENTIALS_TIMER = `[Unit]
Description=Looks for a new database credential in the server's metadata

[Timer]
OnBootSec=20s
OnUnitActiveSec=15s

[Install]
WantedBy=timers.target
`;

/** Shell lines that install each engine and configure everything but the credential. */
function setupScript(spec: DatabaseServerSpec): string {
  const head = `#!/bin/sh
# Installs and configures the database engine once, at first boot.
set -eu
. /etc/stratus/database.env
export DEBIAN_FRONTEND=noninteractive
mkdir -p /var/lib/stratus
`;
  const tail = `
# The credential, then what needs its user, then the timer that keeps it current.
/usr/local/sbin/stratus-credentials --setup
systemctl daemon-reload
systemctl enable --now stratus-credentials.timer
`;
  return head + ENGINE_SETUP[spec.engine as keyof typeof ENGINE_SETUP](spec) + tail;
}

const ENGINE_SETUP = {
  postgres: (spec: DatabaseServerSpec) => {
    const packages = postgresPackages(spec);
    const preload = spec.extensions.filter((e) => PRELOADED_EXTENSIONS.includes(e)).map(sqlExtensionName);
    return `${pgdgInstall(packages)}
CONF=/etc/postgresql/$VERSION/main
cat > $CONF/conf.d/stratus.conf <<EOF
listen_addresses = '$ADDRESS'
port = $PORT
password_encryption = scram-sha-256
${preload.length ? `shared_preload_libraries = '${preload.join(',')}'` : ''}
EOF
# Only the local postgres account by its uid; everyone else with a SCRAM password.
cat > $CONF/pg_hba.conf <<'EOF'
local all postgres peer
local all all scram-sha-256
host all all 0.0.0.0/0 scram-sha-256
host all all ::/0 scram-sha-256
EOF
systemctl restart postgresql@$VERSION-main
until runuser -u postgres -- pg_isready -q -p "$PORT"; do sleep 1; done
`;
  },
  redis: () => `
apt-get install -y redis-server
touch /etc/redis/stratus-user.conf
chown redis:redis /etc/redis/stratus-user.conf
chmod 0640 /etc/redis/stratus-user.conf
cat > /etc/redis/stratus.conf <<EOF
bind $ADDRESS
port $PORT
protected-mode yes
include /etc/redis/stratus-user.conf
EOF
echo 'include /etc/redis/stratus.conf' >> /etc/redis/redis.conf
`,
  clickhouse: () => `
curl -fsSL https://packages.clickhouse.com/rpm/lts/repodata/repomd.xml.key | gpg --dearmor -o /usr/share/keyrings/clickhouse-keyring.gpg
echo "deb [signed-by=/usr/share/keyrings/clickhouse-keyring.gpg] https://packages.clickhouse.com/deb stable main" > /etc/apt/sources.list.d/clickhouse.list
apt-get update
apt-get install -y clickhouse-server clickhouse-client
systemctl enable --now clickhouse-server
until clickhouse-client -q 'SELECT 1' >/dev/null 2>&1; do sleep 1; done
# Made while the password-less default user still exists, on localhost only; it goes with the credential.
clickhouse-client -q "CREATE DATABASE IF NOT EXISTS \\\`$DB_NAME\\\`"
cat > /etc/clickhouse-server/config.d/stratus.xml <<EOF
<clickhouse>
  <listen_host>$ADDRESS</listen_host>
  <http_port>$PORT</http_port>
  <default_database>$DB_NAME</default_database>
</clickhouse>
EOF
`,
};

/**
 * The script that applies the verifier in force: the metadata service's
 * (what a reset wrote), else the one of first boot; only when it changed.
 * With `--setup` it also makes what needs the user (the database, the
 * extensions) and restarts what must read new settings.
 */
function credentialsScript(spec: DatabaseServerSpec): string {
  return `${verifierInForce(spec)}
if [ -z "$SETUP" ] && [ "$(cat /var/lib/stratus/applied 2>/dev/null || true)" = "$FP" ]; then exit 0; fi
${ENGINE_CREDENTIALS[spec.engine as keyof typeof ENGINE_CREDENTIALS]}
echo "$FP" > /var/lib/stratus/applied
echo "stratus: ready $FP" > /dev/console
`;
}

/** The head of a credentials script: the verifier in force in `$V` (the metadata's, else first boot's), its form checked, its fingerprint in `$FP`. */
function verifierInForce(spec: DatabaseServerSpec): string {
  const form = VERIFIER_FORMS[spec.engine].source;
  return `#!/bin/sh
set -eu
. /etc/stratus/database.env
SETUP=\${1:-}
META=$(curl -fsS --max-time 5 http://169.254.169.254/openstack/latest/meta_data.json 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin).get("meta", {}).get("${VERIFIER_METADATA_KEY}", ""))' 2>/dev/null || true)
V=\${META:-$(cat /etc/stratus/verifier)}
if ! printf '%s' "$V" | grep -Eqx '${form}'; then
  echo "stratus: the verifier in the metadata is not one ${spec.engine} takes; nothing applied" > /dev/console
  exit 1
fi
FP=$(printf '%s' "$V" | sha256sum | cut -c1-16)`;
}

/** PostgreSQL of the spec's major and its extensions' packages. */
function postgresPackages(spec: DatabaseServerSpec): string[] {
  const major = spec.version!;
  return [`postgresql-${major}`, ...spec.extensions.filter((e) => POSTGRES_EXTENSION_PACKAGES[e]).map((e) => POSTGRES_EXTENSION_PACKAGES[e](major))];
}

/** Shell lines that add PGDG's repository and install `packages` (PGDG's and Debian's alike). */
function pgdgInstall(packages: string[]): string {
  return `
curl -fsSL https://www.postgresql.org/media/keys/ACCC4CF8.asc | gpg --dearmor -o /usr/share/keyrings/pgdg.gpg
echo "deb [signed-by=/usr/share/keyrings/pgdg.gpg] http://apt.postgresql.org/pub/repos/apt ${DATABASE_IMAGE_RELEASE}-pgdg main" > /etc/apt/sources.list.d/pgdg.list
apt-get update
apt-get install -y ${packages.join(' ')}`;
}

const ENGINE_CREDENTIALS = {
  // psql quotes the variables itself (:"name" and :'value'); the heredocs are not expanded by the shell.
  postgres: `[ "$SUPERUSER" = yes ] && ROLE=SUPERUSER || ROLE=NOSUPERUSER
runuser -u postgres -- psql -q -p "$PORT" -v ON_ERROR_STOP=1 -v user="$DB_USER" -v verifier="$V" -v role="$ROLE" <<'SQL'
SELECT count(*) > 0 AS present FROM pg_roles WHERE rolname = :'user' \\gset
\\if :present
ALTER ROLE :"user" WITH LOGIN :role PASSWORD :'verifier';
\\else
CREATE ROLE :"user" LOGIN :role PASSWORD :'verifier';
\\endif
SQL
if [ -n "$SETUP" ]; then
  runuser -u postgres -- psql -q -p "$PORT" -v ON_ERROR_STOP=1 -v db="$DB_NAME" -v user="$DB_USER" <<'SQL'
SELECT count(*) = 0 AS missing FROM pg_database WHERE datname = :'db' \\gset
\\if :missing
CREATE DATABASE :"db" OWNER :"user";
\\endif
SQL
  for EXT in $EXTENSIONS; do
    runuser -u postgres -- psql -q -p "$PORT" -d "$DB_NAME" -v ON_ERROR_STOP=1 -v ext="$EXT" <<'SQL'
CREATE EXTENSION IF NOT EXISTS :"ext" CASCADE;
SQL
  done
fi`,
  // An ACL rule holding the SHA-256: requirepass would take the hash as the literal password.
  redis: `echo "user default on #$V ~* &* +@all" > /etc/redis/stratus-user.conf
systemctl restart redis-server`,
  // No default user: the app user is the only one. ClickHouse reloads users files by itself; a restart takes the listener of --setup.
  clickhouse: `[ "$SUPERUSER" = yes ] && MANAGE=1 || MANAGE=0
cat > /etc/clickhouse-server/users.d/stratus.xml <<EOF
<clickhouse>
  <users>
    <default remove="remove"/>
    <$DB_USER>
      <password_sha256_hex>$V</password_sha256_hex>
      <networks><ip>::/0</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
      <access_management>$MANAGE</access_management>
    </$DB_USER>
  </users>
</clickhouse>
EOF
chown clickhouse:clickhouse /etc/clickhouse-server/users.d/stratus.xml
chmod 0640 /etc/clickhouse-server/users.d/stratus.xml
if [ -n "$SETUP" ]; then systemctl restart clickhouse-server; fi`,
};

/**
 * A member's credentials script: only the primary (its Patroni answers
 * 200 on /primary) writes the role, the database and the extensions; the
 * replicas get its catalog by replication. Each member says ready once the
 * catalog it serves holds the verifier, so the console of every member
 * tells whether the reset reached it, whichever is the primary.
 */
function haCredentialsScript(spec: DatabaseServerSpec): string {
  return `${verifierInForce(spec)}
if [ "$(cat /var/lib/stratus/applied 2>/dev/null || true)" = "$FP" ]; then exit 0; fi
if [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://$MEMBER_ADDRESS:${PATRONI_REST_PORT}/primary" || true)" = 200 ]; then
SETUP=yes
${ENGINE_CREDENTIALS.postgres}
fi
HELD=$(runuser -u postgres -- psql -X -qtA -p "$PORT" -v user="$DB_USER" <<'SQL'
SELECT rolpassword FROM pg_authid WHERE rolname = :'user';
SQL
) || exit 0
[ "$HELD" = "$V" ] || exit 0
echo "$FP" > /var/lib/stratus/applied
echo "stratus: ready $FP" > /dev/console
`;
}

/**
 * A member's first-boot script: PostgreSQL from PGDG as for a single
 * server, Patroni, its etcd client and etcd from Debian; Debian's own
 * cluster goes (Patroni makes and runs the one it replicates); etcd and
 * Patroni start with the settings cloud-init wrote, without waiting for
 * the other members (a member's etcd is up only once a second one is).
 */
function haSetupScript(spec: DatabaseServerSpec): string {
  return `#!/bin/sh
# Installs and configures one member of an ha PostgreSQL once, at first boot.
set -eu
. /etc/stratus/database.env
export DEBIAN_FRONTEND=noninteractive
mkdir -p /var/lib/stratus
${pgdgInstall([...postgresPackages(spec), ...HA_PACKAGES])}
pg_dropcluster --stop "$VERSION" main || true
systemctl disable --now postgresql
# The package started etcd as a cluster of one on localhost: it starts again as one of the three.
systemctl stop etcd
rm -rf /var/lib/etcd/default
install -m 0644 /etc/stratus/etcd.env /etc/default/etcd
systemctl enable etcd
systemctl start --no-block etcd
install -d -o postgres -g postgres -m 0700 "/var/lib/postgresql/$VERSION"
install -d -m 0755 /etc/patroni
install -o postgres -g postgres -m 0600 /etc/stratus/patroni.yml /etc/patroni/config.yml
systemctl enable patroni
systemctl start --no-block patroni
systemctl daemon-reload
systemctl enable --now stratus-credentials.timer
`;
}

/**
 * Patroni and its store from Debian 12. Patroni's package depends on one
 * of several stores' clients and apt takes whichever comes first, so
 * python3-etcd, which its etcd3 store imports, is named.
 */
const HA_PACKAGES = ['patroni', 'python3-etcd', 'etcd-server'];

/** etcd's settings (Debian's /etc/default/etcd): one of three, on the member addresses, with no secret among them. */
function etcdEnvironment(spec: DatabaseServerSpec, n: number): string {
  const address = spec.memberAddresses[n];
  const peers = spec.memberAddresses.map((a, i) => `${memberName(i)}=http://${a}:${ETCD_PEER_PORT}`).join(',');
  const vars: Record<string, string> = {
    ETCD_NAME: memberName(n),
    ETCD_DATA_DIR: '/var/lib/etcd/stratus',
    ETCD_LISTEN_PEER_URLS: `http://${address}:${ETCD_PEER_PORT}`,
    ETCD_INITIAL_ADVERTISE_PEER_URLS: `http://${address}:${ETCD_PEER_PORT}`,
    ETCD_LISTEN_CLIENT_URLS: `http://${address}:${ETCD_CLIENT_PORT},http://127.0.0.1:${ETCD_CLIENT_PORT}`,
    ETCD_ADVERTISE_CLIENT_URLS: `http://${address}:${ETCD_CLIENT_PORT}`,
    ETCD_INITIAL_CLUSTER: peers,
    ETCD_INITIAL_CLUSTER_STATE: 'new',
    ETCD_INITIAL_CLUSTER_TOKEN: spec.key,
  };
  return Object.entries(vars)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join('\n')
    .concat('\n');
}

/**
 * Patroni's leader lease across servers: Patroni's own defaults, which
 * outlast a network hiccup between them (the local provider's members
 * share one host and take a shorter lease).
 */
const PATRONI_TIMING = { ttl: 30, loop_wait: 10, retry_timeout: 10 } as const;

/**
 * Member n's Patroni settings. Replication and pg_rewind connect only
 * from the member addresses, the superuser only as the local postgres
 * account; the app user from anywhere, with its SCRAM password.
 */
function patroniConfig(spec: DatabaseServerSpec, n: number, secrets: HaMemberSecrets): string {
  const address = spec.memberAddresses[n];
  const preload = spec.extensions.filter((e) => PRELOADED_EXTENSIONS.includes(e)).map(sqlExtensionName);
  const q = (v: string) => JSON.stringify(v);
  const members = spec.memberAddresses.map((a) => `${a}/${isIP(a) === 6 ? 128 : 32}`);
  const hba = [
    'local all postgres peer',
    'local all all scram-sha-256',
    ...members.map((m) => `host replication replicator ${m} scram-sha-256`),
    ...members.map((m) => `host all rewinder ${m} scram-sha-256`),
    'host all postgres 0.0.0.0/0 reject',
    'host all postgres ::/0 reject',
    'host all all 0.0.0.0/0 scram-sha-256',
    'host all all ::/0 scram-sha-256',
  ];
  const hbaLines = hba.map((l) => `    - ${l}`).join('\n');
  return `scope: ${q(spec.key)}
namespace: /stratus/
name: ${memberName(n)}
${patroniRestApi(address, secrets.restApi)}
etcd3:
  hosts: [${spec.memberAddresses.map((a) => q(`${a}:${ETCD_CLIENT_PORT}`)).join(', ')}]
bootstrap:
${patroniDcs(PATRONI_TIMING)}
  initdb:
    - encoding: UTF8
    - data-checksums
  # Patroni 3.0's schema asks for it; Patroni writes postgresql.pg_hba when set, so the lines are the same.
  pg_hba:
${hbaLines}
postgresql:
  listen: ${q(`${address}:${spec.port}`)}
  connect_address: ${q(`${address}:${spec.port}`)}
  data_dir: ${q(`/var/lib/postgresql/${spec.version}/patroni`)}
  bin_dir: ${q(`/usr/lib/postgresql/${spec.version}/bin`)}
  pgpass: /var/lib/postgresql/.pgpass-patroni
  use_unix_socket: true
${PATRONI_BASEBACKUP}
${patroniAuthentication(secrets)}
  parameters:
    password_encryption: scram-sha-256
${preload.length ? `    shared_preload_libraries: ${q(preload.join(','))}\n` : ''}  pg_hba:
${hbaLines}
`;
}
