#!/usr/bin/env bash
# The OpenStack testbed: a real OpenStack (Debian 12's own Zed packages) on
# this machine, bound to 127.0.0.1, with no hypervisor and no data path,
# for the `openstack` provider's suites (npm run test:openstack).
#
#   testbed.sh up            install (first time), configure, start, seed; safe to repeat
#   testbed.sh down          stop every daemon this script started (by pid file)
#   testbed.sh down --purge  also drop its databases and its state folder
#                            (the Debian packages stay installed)
#   testbed.sh status        which daemons run and which APIs answer
#   testbed.sh repair        set Octavia objects stuck PENDING to ERROR (see cmd_repair)
#   testbed.sh fail-lb ID    set Octavia load balancer ID to ERROR (see cmd_fail)
#   testbed.sh fail-pool ID  the same of an Octavia pool
#   testbed.sh fail-listener ID  the same of an Octavia listener
#   testbed.sh dir           the state folder (where the clouds.yaml is)
#
# Needs root, MariaDB on 127.0.0.1:3306 (root, empty password) and RabbitMQ
# on 127.0.0.1:5672 (guest/guest). Its databases are named ostb_*. Services
# are background daemons (no systemd), one worker each.
#
# The testbed is one per host, whatever checkout starts it: its packages,
# /etc/<service>, databases and ports are the host's. So are its state, logs,
# secrets, pid files and clouds.yaml, under /var/lib/stratus-openstack-testbed
# (OPENSTACK_TESTBED_DIR): every checkout, a fresh clone's CI run among them,
# finds the one running and uses it, never starts a second over it.
set -euo pipefail
# Debian's own Python and tools, whatever else PATH holds (a pyenv, a venv).
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
PY=/usr/bin/python3

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
STATE=${OPENSTACK_TESTBED_DIR:-/var/lib/stratus-openstack-testbed}
RUN=$STATE/run
LOGS=$STATE/logs
ETC=$STATE/etc
HOST=127.0.0.1
REGION=RegionOne
DB_PREFIX=ostb_
DB_URL="mysql+pymysql://root@$HOST:3306"
RABBIT="rabbit://guest:guest@$HOST:5672/"
KEYSTONE="http://$HOST:5000"

# name:port:wsgi-file:threads. Eventlet-based APIs (nova, neutron, glance,
# cinder, heat) get one thread: more hangs them ("cannot switch to a
# different thread").
APIS=(
  keystone:5000:/usr/bin/keystone-wsgi-public:4
  placement:8778:/usr/bin/placement-api:2
  glance:9292:/usr/bin/glance-wsgi-api:1
  nova:8774:/usr/bin/nova-api-wsgi:1
  neutron:9696:/usr/bin/neutron-api:1
  cinder:8776:/usr/bin/cinder-wsgi:1
  octavia:9876:/usr/bin/octavia-wsgi:2
  heat:8004:/usr/bin/heat-wsgi-api:1
)
# name:python module whose main() runs it:config file.
DAEMONS=(
  nova-conductor:nova.cmd.conductor:/etc/nova/nova.conf
  nova-scheduler:nova.cmd.scheduler:/etc/nova/nova.conf
  nova-compute:nova.cmd.compute:/etc/nova/nova.conf
  cinder-scheduler:cinder.cmd.scheduler:/etc/cinder/cinder.conf
  cinder-volume:cinder.cmd.volume:/etc/cinder/cinder.conf
  octavia-worker:octavia.cmd.octavia_worker:/etc/octavia/octavia.conf
  heat-engine:heat.cmd.engine:/etc/heat/heat.conf
)
DATABASES=(keystone placement glance nova_api nova nova_cell0 neutron cinder octavia heat)
# Only the libraries and the -common packages (configuration, users, paste
# files): the daemons run from their Python modules, so nova-compute's
# hypervisor tools, cinder-volume's iSCSI and LVM and the packaged init
# scripts are not needed.
PACKAGES=(
  keystone placement-common glance-common nova-common neutron-common cinder-common
  octavia-common heat-common python3-openstackclient python3-pymysql uwsgi-core uwsgi-plugin-python3
  curl openssl
)

log() { printf '%s testbed: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() {
  log "error: $*"
  exit 1
}

need_root() { [ "$(id -u)" = 0 ] || die "run as root (it installs Debian packages and writes /etc/<service>)"; }

check_backends() {
  mysql -h "$HOST" -uroot -e 'SELECT 1' >/dev/null 2>&1 || die "MariaDB does not answer on $HOST:3306 as root without a password"
  (exec 3<>"/dev/tcp/$HOST/5672") 2>/dev/null || die "RabbitMQ does not answer on $HOST:5672"
}

# ---------------------------------------------------------------- install

install_packages() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]}"
  # No package may configure a database, RabbitMQ or Keystone on its own:
  # every service is configured below, by this script.
  local sel="keystone keystone/configure_db boolean false
keystone keystone/create-admin-tenant boolean false
keystone keystone/register-endpoint boolean false"
  for svc in nova neutron glance cinder octavia heat placement; do
    sel+="
$svc-common $svc/configure_db boolean false
$svc-common $svc/configure_rabbit boolean false
$svc-common $svc/configure_ksat boolean false
$svc-common $svc/ksat-create-service-user boolean false
$svc-common $svc/configure_api-endpoint boolean false"
  done
  sel+="
nova-common nova/configure_neutron boolean false
nova-common nova/configure_placement boolean false
nova-common novaapi/configure_db boolean false
neutron-common neutron/configure_nova boolean false
heat-common heat/configure_with_debconf boolean false"
  echo "$sel" | debconf-set-selections
  # Packages start no daemon of their own while they install (there is no
  # systemd here; this script starts what it needs).
  local policy=/usr/sbin/policy-rc.d saved=""
  if [ -e "$policy" ]; then
    saved=$(mktemp)
    cp -p "$policy" "$saved"
  fi
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  local rc=0
  # A fresh machine may have no package lists yet. Another install (the
  # project's system packages) may hold dpkg's lock: wait for it.
  apt-get update -qq -o DPkg::Lock::Timeout=600 >"$LOGS/apt-update.log" 2>&1 || true
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 \
    -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${missing[@]}" >"$LOGS/apt.log" 2>&1 || rc=$?
  if [ -n "$saved" ]; then mv "$saved" "$policy"; else rm -f "$policy"; fi
  [ $rc -eq 0 ] || die "apt-get install failed (see $LOGS/apt.log)"
}

# The binding mechanism driver, a file of this project, installed where
# Python finds it and registered under Neutron's ML2 entry point.
install_mechanism_driver() {
  local site
  site=$($PY -c 'import site; print([p for p in site.getsitepackages() if p.startswith("/usr/local")][0])')
  mkdir -p "$site/stratus_testbed_ml2-1.0.dist-info"
  install -m 644 "$HERE/stratus_testbed_ml2.py" "$site/stratus_testbed_ml2.py"
  printf 'Metadata-Version: 2.1\nName: stratus-testbed-ml2\nVersion: 1.0\n' >"$site/stratus_testbed_ml2-1.0.dist-info/METADATA"
  printf '[neutron.ml2.mechanism_drivers]\nstratus_testbed = stratus_testbed_ml2:BindEveryPortDriver\n' \
    >"$site/stratus_testbed_ml2-1.0.dist-info/entry_points.txt"
}

# ---------------------------------------------------------------- secrets

load_secrets() {
  local f=$STATE/secrets.env
  if [ ! -s "$f" ]; then
    (
      umask 077
      {
        echo "ADMIN_PASSWORD=$(openssl rand -hex 16)"
        echo "SERVICE_PASSWORD=$(openssl rand -hex 16)"
        echo "USER_PASSWORD=$(openssl rand -hex 16)"
        echo "HEAT_DOMAIN_PASSWORD=$(openssl rand -hex 16)"
        echo "OCTAVIA_CA_PASSPHRASE=$(openssl rand -hex 16)"
        # Octavia wants exactly 32 characters here.
        echo "OCTAVIA_CERT_PASSPHRASE=$(openssl rand -hex 16)"
      } >"$f"
    )
  fi
  chmod 600 "$f"
  # shellcheck disable=SC1090
  . "$f"
}

# ---------------------------------------------------------------- configuration

# Writes $2 to /etc/$1 when it differs; records the service as changed so a
# running daemon of it restarts.
CHANGED=" "
put_conf() {
  local svc=$1 path=$2 tmp
  tmp=$(mktemp)
  cat >"$tmp"
  if [ -f "$path" ] && cmp -s "$tmp" "$path"; then
    rm -f "$tmp"
    return 0
  fi
  mkdir -p "$(dirname "$path")"
  install -m 640 "$tmp" "$path"
  rm -f "$tmp"
  CHANGED+="$svc "
}

authtoken() { # section name, user
  cat <<EOF
[$1]
www_authenticate_uri = $KEYSTONE
auth_url = $KEYSTONE
auth_type = password
project_domain_name = Default
user_domain_name = Default
project_name = service
username = $2
password = $SERVICE_PASSWORD
region_name = $REGION
EOF
}

database() { # section, database
  cat <<EOF
[$1]
connection = $DB_URL/$DB_PREFIX$2?charset=utf8
max_pool_size = 3
max_overflow = 5
EOF
}

write_configs() {
  mkdir -p "$STATE"/{nova,glance/images,glance/staging,glance/tasks,cinder,octavia,heat,neutron,keystone} "$STATE/lock"

  put_conf keystone /etc/keystone/keystone.conf <<EOF
[DEFAULT]
use_stderr = true
$(database database keystone)
[token]
provider = fernet
expiration = 3600
[fernet_tokens]
key_repository = /etc/keystone/fernet-keys/
[credential]
key_repository = /etc/keystone/credential-keys/
EOF

  put_conf placement /etc/placement/placement.conf <<EOF
[DEFAULT]
use_stderr = true
[api]
auth_strategy = keystone
$(authtoken keystone_authtoken placement)
$(database placement_database placement)
EOF

  put_conf glance /etc/glance/glance-api.conf <<EOF
[DEFAULT]
use_stderr = true
workers = 1
enabled_backends = file:file
$(database database glance)
$(authtoken keystone_authtoken glance)
[paste_deploy]
flavor = keystone
[glance_store]
default_backend = file
[file]
filesystem_store_datadir = $STATE/glance/images
[os_glance_staging_store]
filesystem_store_datadir = $STATE/glance/staging
[os_glance_tasks_store]
filesystem_store_datadir = $STATE/glance/tasks
[oslo_concurrency]
lock_path = $STATE/lock
EOF

  # Nova: the fake virt driver (servers live in nova-compute's memory); no
  # waiting for vif-plugged events (no agent sends them); the service token
  # (volume detach hangs in `detaching` without it).
  put_conf nova /etc/nova/nova.conf <<EOF
[DEFAULT]
use_stderr = true
transport_url = $RABBIT
my_ip = $HOST
host = testbed
state_path = $STATE/nova
compute_driver = fake.FakeDriver
enabled_apis = osapi_compute
osapi_compute_workers = 1
vif_plugging_is_fatal = false
vif_plugging_timeout = 0
[api]
auth_strategy = keystone
$(database api_database nova_api)
$(database database nova)
[conductor]
workers = 1
[scheduler]
workers = 1
discover_hosts_in_cells_interval = 30
$(authtoken keystone_authtoken nova)
service_token_roles_required = true
$(authtoken service_user nova)
send_service_user_token = true
$(authtoken placement nova)
$(authtoken neutron neutron)
$(authtoken cinder nova)
os_region_name = $REGION
[glance]
region_name = $REGION
[vnc]
enabled = false
[oslo_concurrency]
lock_path = $STATE/lock
[oslo_messaging_notifications]
driver = noop
[wsgi]
api_paste_config = /etc/nova/api-paste.ini
EOF

  # Neutron: ML2 with the testbed's binding driver and no agents; the
  # external network is flat on physnet1, tenant networks are VXLAN ids
  # that exist only in the database.
  put_conf neutron /etc/neutron/neutron.conf <<EOF
[DEFAULT]
use_stderr = true
core_plugin = ml2
service_plugins = router
auth_strategy = keystone
transport_url = $RABBIT
api_workers = 1
rpc_workers = 0
allow_overlapping_ips = true
notify_nova_on_port_status_changes = false
notify_nova_on_port_data_changes = false
dhcp_agent_notification = false
api_paste_config = /etc/neutron/api-paste.ini
state_path = $STATE/neutron
$(database database neutron)
$(authtoken keystone_authtoken neutron)
[oslo_concurrency]
lock_path = $STATE/lock
[oslo_messaging_notifications]
driver = noop
EOF

  # Neutron reads this file after neutron.conf (Debian's copy names the
  # openvswitch driver): the ML2 settings go here.
  put_conf neutron /etc/neutron/plugins/ml2/ml2_conf.ini <<EOF
[ml2]
type_drivers = flat,vxlan
tenant_network_types = vxlan
mechanism_drivers = stratus_testbed
extension_drivers = port_security
[ml2_type_flat]
flat_networks = physnet1
[ml2_type_vxlan]
vni_ranges = 1:1000
EOF

  put_conf cinder /etc/cinder/cinder.conf <<EOF
[DEFAULT]
use_stderr = true
transport_url = $RABBIT
auth_strategy = keystone
osapi_volume_workers = 1
host = testbed
my_ip = $HOST
state_path = $STATE/cinder
enabled_backends = fake
api_paste_config = /etc/cinder/api-paste.ini
$(database database cinder)
$(authtoken keystone_authtoken cinder)
service_token_roles_required = true
[fake]
volume_driver = cinder.tests.fake_driver.FakeLoggingVolumeDriver
volume_backend_name = fake
[oslo_concurrency]
lock_path = $STATE/lock
[oslo_messaging_notifications]
driver = noop
EOF

  # Octavia: the no-op amphora, compute and network drivers; a local CA
  # (a load balancer goes to ERROR without client_ca).
  local ca=$STATE/octavia/ca
  put_conf octavia /etc/octavia/octavia.conf <<EOF
[DEFAULT]
use_stderr = true
transport_url = $RABBIT
[api_settings]
bind_host = $HOST
bind_port = 9876
auth_strategy = keystone
default_provider_driver = amphora
enabled_provider_drivers = amphora:The Octavia Amphora driver.
$(database database octavia)
$(authtoken keystone_authtoken octavia)
$(authtoken service_auth octavia)
[controller_worker]
workers = 1
amphora_driver = amphora_noop_driver
compute_driver = compute_noop_driver
network_driver = network_noop_driver
loadbalancer_topology = SINGLE
client_ca = $ca/ca.pem
[certificates]
ca_certificate = $ca/ca.pem
ca_private_key = $ca/ca.key
ca_private_key_passphrase = $OCTAVIA_CA_PASSPHRASE
server_certs_key_passphrase = $OCTAVIA_CERT_PASSPHRASE
[haproxy_amphora]
client_cert = $ca/client.pem
server_ca = $ca/ca.pem
[task_flow]
jobboard_enabled = false
[oslo_messaging]
topic = octavia_prov
[oslo_messaging_notifications]
driver = noop
EOF

  # Heat: its stack user domain (made in Keystone by the seed step).
  put_conf heat /etc/heat/heat.conf <<EOF
[DEFAULT]
use_stderr = true
transport_url = $RABBIT
num_engine_workers = 1
region_name_for_services = $REGION
heat_metadata_server_url = http://$HOST:8000
heat_waitcondition_server_url = http://$HOST:8000/v1/waitcondition
stack_user_domain_name = heat
stack_domain_admin = heat_domain_admin
stack_domain_admin_password = $HEAT_DOMAIN_PASSWORD
[heat_api]
workers = 1
$(database database heat)
$(authtoken keystone_authtoken heat)
[trustee]
auth_type = password
auth_url = $KEYSTONE
username = heat
password = $SERVICE_PASSWORD
user_domain_name = Default
[clients_keystone]
auth_uri = $KEYSTONE
[oslo_messaging_notifications]
driver = noop
EOF

  octavia_ca
  uwsgi_inis
}

octavia_ca() {
  local ca=$STATE/octavia/ca
  [ -s "$ca/client.pem" ] && return 0
  mkdir -p "$ca"
  (
    umask 077
    openssl req -x509 -newkey rsa:2048 -days 3650 -subj /CN=stratus-testbed-octavia-ca \
      -keyout "$ca/ca.key" -passout "pass:$OCTAVIA_CA_PASSPHRASE" -out "$ca/ca.pem" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj /CN=stratus-testbed-octavia-client \
      -keyout "$ca/client.key" -out "$ca/client.csr" 2>/dev/null
    openssl x509 -req -in "$ca/client.csr" -CA "$ca/ca.pem" -CAkey "$ca/ca.key" -passin "pass:$OCTAVIA_CA_PASSPHRASE" \
      -CAcreateserial -days 3650 -out "$ca/client.crt" 2>/dev/null
    cat "$ca/client.crt" "$ca/client.key" >"$ca/client.pem"
  )
}

# One uwsgi per API on 127.0.0.1, one process; `Connection: close` on every
# answer (clients that reuse a socket uwsgi already closed see ECONNRESET).
uwsgi_inis() {
  mkdir -p "$ETC"
  local entry name port file threads
  for entry in "${APIS[@]}"; do
    IFS=: read -r name port file threads <<<"$entry"
    put_conf "$name" "$ETC/$name-uwsgi.ini" <<EOF
[uwsgi]
plugins = python3
http-socket = $HOST:$port
wsgi-file = $file
master = true
processes = 1
threads = $threads
enable-threads = true
lazy-apps = true
die-on-term = true
no-orphans = true
buffer-size = 65535
listen = 100
add-header = Connection: close
logto = $LOGS/$name-api.log
EOF
  done
}

# ---------------------------------------------------------------- databases

sql() { mysql -h "$HOST" -uroot -N -B -e "$1"; }
has_tables() { [ "$(sql "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='$DB_PREFIX$1'")" -gt 0 ]; }

sync_databases() {
  local db
  for db in "${DATABASES[@]}"; do
    sql "CREATE DATABASE IF NOT EXISTS \`$DB_PREFIX$db\` CHARACTER SET utf8"
  done
  if ! has_tables keystone; then
    log "keystone: database and keys"
    keystone-manage db_sync >"$LOGS/keystone-db.log" 2>&1
  fi
  [ -s /etc/keystone/fernet-keys/0 ] || keystone-manage fernet_setup --keystone-user root --keystone-group root >/dev/null 2>&1
  [ -s /etc/keystone/credential-keys/0 ] || keystone-manage credential_setup --keystone-user root --keystone-group root >/dev/null 2>&1
  if ! has_tables placement; then
    log "placement: database"
    placement-manage db sync >"$LOGS/placement-db.log" 2>&1
  fi
  if ! has_tables glance; then
    log "glance: database"
    glance-manage db_sync >"$LOGS/glance-db.log" 2>&1
  fi
  if ! has_tables nova; then
    log "nova: databases and cells"
    {
      nova-manage api_db sync
      nova-manage cell_v2 map_cell0 --database_connection "$DB_URL/${DB_PREFIX}nova_cell0?charset=utf8"
      nova-manage cell_v2 list_cells | grep -q ' cell1 ' || nova-manage cell_v2 create_cell --name cell1
      nova-manage db sync
    } >"$LOGS/nova-db.log" 2>&1
  fi
  if ! has_tables neutron; then
    log "neutron: database"
    neutron-db-manage --config-file /etc/neutron/neutron.conf upgrade heads >"$LOGS/neutron-db.log" 2>&1
  fi
  if ! has_tables cinder; then
    log "cinder: database"
    cinder-manage db sync >"$LOGS/cinder-db.log" 2>&1
  fi
  if ! has_tables octavia; then
    log "octavia: database"
    octavia-db-manage --config-file /etc/octavia/octavia.conf upgrade head >"$LOGS/octavia-db.log" 2>&1
  fi
  if ! has_tables heat; then
    log "heat: database"
    heat-manage db_sync >"$LOGS/heat-db.log" 2>&1
  fi
}

# ---------------------------------------------------------------- daemons

pid_of() { # name: the pid when its daemon runs
  local f=$RUN/$1.pid pid
  [ -s "$f" ] || return 1
  pid=$(cat "$f")
  kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

# Starts `$@` as a background daemon in its own session (its process group
# is what `down` stops), unless it runs already.
spawn() {
  local name=$1 svc=$2
  shift 2
  if pid_of "$name" >/dev/null; then
    [[ $CHANGED == *" $svc "* ]] || return 0
    log "$name: configuration changed, restarting"
    stop_one "$name"
  fi
  setsid "$@" </dev/null >>"$LOGS/$name.log" 2>&1 &
  echo $! >"$RUN/$name.pid"
  STARTED+="$name "
}

STARTED=""
start_apis() {
  local entry name port file threads
  for entry in "${APIS[@]}"; do
    IFS=: read -r name port file threads <<<"$entry"
    spawn "$name-api" "$name" uwsgi --ini "$ETC/$name-uwsgi.ini"
  done
}

start_daemons() {
  local entry name module conf
  for entry in "${DAEMONS[@]}"; do
    IFS=: read -r name module conf <<<"$entry"
    spawn "$name" "${name%%-*}" $PY -c "import sys; sys.argv[0] = '$name'; from $module import main; sys.exit(main())" \
      --config-file "$conf"
  done
}

wait_http() { # name url
  local i
  for i in $(seq 1 240); do
    if curl -s -o /dev/null -m 5 "$2"; then return 0; fi
    sleep 0.5
  done
  die "$1 does not answer at $2 (see $LOGS)"
}

wait_apis() {
  local entry name port file threads
  for entry in "${APIS[@]}"; do
    IFS=: read -r name port file threads <<<"$entry"
    wait_http "$name" "http://$HOST:$port/"
  done
}

stop_one() {
  local name=$1 pid i
  pid=$(pid_of "$name") || {
    rm -f "$RUN/$name.pid"
    return 0
  }
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 40); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.25
  done
  kill -KILL -- "-$pid" 2>/dev/null || true
  rm -f "$RUN/$name.pid"
}

# ---------------------------------------------------------------- commands

cmd_up() {
  need_root
  local t0=$SECONDS
  mkdir -p "$RUN" "$LOGS"
  chmod 700 "$STATE"
  check_backends
  install_packages
  install_mechanism_driver
  load_secrets
  write_configs
  sync_databases
  start_apis
  wait_apis
  # Services, users and endpoints first: the daemons authenticate as them.
  # Seeded again when a daemon (re)started or the seed itself changed.
  local seeded
  seeded=$(sha256sum "$HERE/seed.py" | cut -c1-16)
  local reseed=""
  if [ -n "$STARTED" ] || [ ! -s "$STATE/clouds.yaml" ] || [ "$(cat "$STATE/seeded" 2>/dev/null)" != "$seeded" ]; then reseed=1; fi
  if [ -n "$reseed" ]; then
    log "seeding Keystone, flavors, image and networks"
    keystone-manage bootstrap --bootstrap-password "$ADMIN_PASSWORD" --bootstrap-username admin \
      --bootstrap-project-name admin --bootstrap-role-name admin \
      --bootstrap-admin-url "$KEYSTONE/v3/" --bootstrap-internal-url "$KEYSTONE/v3/" \
      --bootstrap-public-url "$KEYSTONE/v3/" --bootstrap-region-id "$REGION" >"$LOGS/keystone-bootstrap.log" 2>&1
    ADMIN_PASSWORD=$ADMIN_PASSWORD SERVICE_PASSWORD=$SERVICE_PASSWORD USER_PASSWORD=$USER_PASSWORD \
      HEAT_DOMAIN_PASSWORD=$HEAT_DOMAIN_PASSWORD $PY "$HERE/seed.py" identity "$STATE"
  fi
  start_daemons
  if [ -n "$reseed" ]; then
    wait_compute
    ADMIN_PASSWORD=$ADMIN_PASSWORD SERVICE_PASSWORD=$SERVICE_PASSWORD USER_PASSWORD=$USER_PASSWORD \
      HEAT_DOMAIN_PASSWORD=$HEAT_DOMAIN_PASSWORD $PY "$HERE/seed.py" resources "$STATE"
    echo "$seeded" >"$STATE/seeded"
  fi
  cmd_repair
  log "up in $((SECONDS - t0)) s; clouds.yaml: $STATE/clouds.yaml (cloud stratus-testbed)"
}

# Octavia's worker fails a task whose object another request changed under
# it (a pool deleted twice, a monitor made on a pool being deleted), and then
# leaves its load balancer PENDING_UPDATE for good: every later change is
# refused as immutable, and only an operator can release it (Octavia's own
# advice is to set it to ERROR, after which its owner may delete it). With
# the no-op drivers every change takes a second or two, so an object still
# PENDING after STUCK_MINUTES is stuck: set to ERROR, for the runs that own it
# to delete. Done at every `up` and by `repair` (the test setups call it).
STUCK_MINUTES=5
cmd_repair() {
  need_root
  local t n=0 changed
  for t in load_balancer listener pool member health_monitor l7policy l7rule; do
    changed=$(sql "UPDATE ${DB_PREFIX}octavia.$t SET provisioning_status = 'ERROR'
      WHERE provisioning_status LIKE 'PENDING%' AND COALESCE(updated_at, created_at) < UTC_TIMESTAMP() - INTERVAL $STUCK_MINUTES MINUTE;
      SELECT ROW_COUNT();")
    n=$((n + changed))
  done
  if [ "$n" -gt 0 ]; then log "octavia: $n object(s) stuck PENDING for over $STUCK_MINUTES minutes set to ERROR"; fi
}

# What Octavia does to an object whose change its driver failed, which the
# no-op drivers never do: for the suites that check what the provider does
# with one (a load balancer in ERROR its owner may only delete; a pool or
# listener in ERROR on a healthy one). $1 is the Octavia table
# (load_balancer, pool, listener), $2 the object's id.
cmd_fail() {
  need_root
  local table="$1" id="${2:-}"
  [[ "$id" =~ ^[0-9a-f-]{36}$ ]] || die "usage: $0 fail-${table//_/-} <id>"
  [ "$(sql "UPDATE ${DB_PREFIX}octavia.${table} SET provisioning_status = 'ERROR' WHERE id = '$id'; SELECT ROW_COUNT();")" = 1 ] ||
    die "no Octavia ${table//_/ } $id"
}

# nova-compute registers itself; its host is mapped to cell1 before a
# server can be scheduled.
wait_compute() {
  local i
  for i in $(seq 1 120); do
    if [ "$(sql "SELECT COUNT(*) FROM ${DB_PREFIX}nova.compute_nodes WHERE deleted = 0")" -gt 0 ]; then
      nova-manage cell_v2 discover_hosts >/dev/null 2>&1
      return 0
    fi
    sleep 1
  done
  die "nova-compute did not register (see $LOGS/nova-compute.log)"
}

cmd_down() {
  local entry name rest
  for entry in "${DAEMONS[@]}" "${APIS[@]}"; do
    name=${entry%%:*}
    [[ $entry == *:/usr/bin/* ]] && name=$name-api
    stop_one "$name"
  done
  log "stopped"
  if [ "${1:-}" = "--purge" ]; then
    need_root
    for db in "${DATABASES[@]}"; do sql "DROP DATABASE IF EXISTS \`$DB_PREFIX$db\`"; done
    rm -rf "$STATE"
    log "purged its databases (${DB_PREFIX}*) and $STATE"
  fi
}

cmd_status() {
  local entry name port file threads module conf pid state rc=0
  for entry in "${APIS[@]}"; do
    IFS=: read -r name port file threads <<<"$entry"
    if pid=$(pid_of "$name-api"); then
      state=$(curl -s -o /dev/null -m 5 -w '%{http_code}' "http://$HOST:$port/" || true)
      printf '%-18s pid %-7s http://%s:%s/ answers %s\n' "$name-api" "$pid" "$HOST" "$port" "$state"
    else
      printf '%-18s stopped\n' "$name-api"
      rc=3
    fi
  done
  for entry in "${DAEMONS[@]}"; do
    IFS=: read -r name module conf <<<"$entry"
    if pid=$(pid_of "$name"); then printf '%-18s pid %s\n' "$name" "$pid"; else
      printf '%-18s stopped\n' "$name"
      rc=3
    fi
  done
  [ -s "$STATE/clouds.yaml" ] && echo "clouds.yaml: $STATE/clouds.yaml"
  return $rc
}

case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down "${2:-}" ;;
  status) cmd_status ;;
  repair) cmd_repair ;;
  fail-lb) cmd_fail load_balancer "${2:-}" ;;
  fail-pool) cmd_fail pool "${2:-}" ;;
  fail-listener) cmd_fail listener "${2:-}" ;;
  dir) echo "$STATE" ;;
  *)
    echo "usage: $0 up | down [--purge] | status | repair | fail-lb|fail-pool|fail-listener <id> | dir" >&2
    exit 2
    ;;
esac
