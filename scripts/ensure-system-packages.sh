#!/bin/sh
# The Debian packages the first start needs, and only those. Idempotent and
# fast when everything is there: apt-get update runs only when something is
# missing. The system services are never started (Stratus runs its own
# servers), so policy-rc.d refuses them for the duration.
#
#   haproxy       the edge's data plane: gateway routes and proxy hosts
#   openssl       the gateway's placeholder certificate for ports without a TLS route
#   nftables      the local provider's packet filter: security groups and the instance boundary
#   redis-server  the embedded Redis (only when REDIS_URL is unset), and cache databases
#
# What only some resources need (ClickHouse for analytics, MariaDB for
# relational databases, PostgreSQL 15 with postgis or pgaudit, Patroni and
# etcd for high-availability PostgreSQL, ZooKeeper for high-availability
# analytics) is installed by the worker when the first
# resource asks for it (SYSTEM_PACKAGES_INSTALL); the resource stays
# `provisioning` meanwhile, its status_reason saying so.
#
# With --all, those too (the test suite and the container image, which
# must not wait for them):
#
#   clickhouse-server        analytics (ClickHouse 18.16)
#   zookeeper                high-availability analytics (ha: true): coordinates the replicas (pulls a Java runtime)
#   mariadb-server           relational databases with engine mariadb (MariaDB 10.11)
#   mariadb-client           the client the worker administers them with
#   postgresql-15            PostgreSQL 15, for postgis and pgaudit
#   postgresql-15-postgis-3  postgis for PostgreSQL 15
#   postgresql-15-pgaudit    pgaudit for PostgreSQL 15
#   patroni                  high-availability PostgreSQL (ha: true): failover of three members
#   python3-etcd             Patroni's etcd client (its package takes any store's client apt has:
#                            with kazoo there, Patroni would find no etcd)
#   etcd-server              the consensus store Patroni elects its leader in
#
# With --browser, what the browser tests drive (the test suite asks for it,
# the container image does not: it is ~300 MB nobody runs in production):
#
#   chromium          headless Chromium, driven by playwright-core
#   fonts-liberation  a font for its pages, so screenshots are readable
#
# STRATUS_SKIP_SYSTEM_PACKAGES=1 skips this step.
set -eu

[ "${STRATUS_SKIP_SYSTEM_PACKAGES:-}" = "1" ] && exit 0

why() {
  case "$1" in
    haproxy) echo "the edge: gateway routes and proxy hosts" ;;
    openssl) echo "the gateway's placeholder certificate" ;;
    nftables) echo "security groups and the instance boundary" ;;
    redis-server) echo "the embedded Redis, as REDIS_URL is unset" ;;
    chromium | fonts-liberation) echo "the browser tests" ;;
    patroni | python3-etcd | etcd-server) echo "high-availability PostgreSQL databases (ha: true)" ;;
    zookeeper) echo "high-availability analytics (ha: true): replicated tables" ;;
    *) echo "asked for with --all" ;;
  esac
}

PACKAGES="haproxy openssl nftables"
ALL=""
BROWSER=""
for arg in "$@"; do
  case "$arg" in
    --all) ALL=1 ;;
    --browser) BROWSER=1 ;;
    *) echo "[stratus] unknown option $arg (--all, --browser)" >&2; exit 2 ;;
  esac
done
if [ -z "${REDIS_URL:-}" ] || [ -n "$ALL" ]; then PACKAGES="$PACKAGES redis-server"; fi
[ -n "$ALL" ] && PACKAGES="$PACKAGES clickhouse-server zookeeper mariadb-server mariadb-client postgresql-15 postgresql-15-postgis-3 postgresql-15-pgaudit patroni python3-etcd etcd-server"
[ -n "$BROWSER" ] && PACKAGES="$PACKAGES chromium fonts-liberation"

command -v dpkg-query >/dev/null 2>&1 || { echo "[stratus] not a Debian system: install $PACKAGES (or equivalents) yourself"; exit 0; }

missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "[stratus] missing system packages:$missing"
  echo "[stratus] install them as root (apt-get install$missing); until then what needs them fails with a reason"
  exit 0
fi

echo "[stratus] installing system packages$([ -z "$ALL" ] && echo " the first start needs") (apt-get, as root):"
for p in $missing; do echo "[stratus]   $p: $(why "$p")"; done
[ -z "$ALL" ] && echo "[stratus] (ClickHouse, PostGIS and pgaudit come later, when a resource first needs them)"
export DEBIAN_FRONTEND=noninteractive
policy=/usr/sbin/policy-rc.d
created_policy=""
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod 755 "$policy" && created_policy=1
fi
cleanup() { [ -n "$created_policy" ] && rm -f "$policy"; return 0; }
trap cleanup EXIT
apt-get update -qq -o DPkg::Lock::Timeout=300
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 $missing >/dev/null
echo "[stratus] system packages installed"
