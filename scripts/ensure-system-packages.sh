#!/bin/sh
# Debian packages the local provider's managed databases and the edge use. Idempotent and
# fast when everything is there: apt-get update runs only when something is
# missing. The system services are never started (the local provider runs
# its own servers), so policy-rc.d refuses them for the duration.
#
#   redis-server             cache (Redis 7)
#   clickhouse-server        analytics (ClickHouse 18.16)
#   postgresql-15            PostgreSQL 15 with postgis and pgaudit
#   postgresql-15-postgis-3  postgis for PostgreSQL 15
#   postgresql-15-pgaudit    pgaudit for PostgreSQL 15
#   haproxy                  the edge's data plane: gateway routes and proxy hosts
#   openssl                  the gateway's placeholder certificate for ports without a TLS route
#   nftables                 the local provider's packet filter: security groups and the instance boundary
#
# STRATUS_SKIP_SYSTEM_PACKAGES=1 skips this step.
set -eu

PACKAGES="redis-server clickhouse-server postgresql-15 postgresql-15-postgis-3 postgresql-15-pgaudit haproxy openssl nftables"

[ "${STRATUS_SKIP_SYSTEM_PACKAGES:-}" = "1" ] && exit 0
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
  echo "[stratus] install them as root (apt-get install$missing); until then creates that need them end in error"
  exit 0
fi

echo "[stratus] installing system packages:$missing"
export DEBIAN_FRONTEND=noninteractive
policy=/usr/sbin/policy-rc.d
created_policy=""
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod 755 "$policy" && created_policy=1
fi
cleanup() { [ -n "$created_policy" ] && rm -f "$policy"; return 0; }
trap cleanup EXIT
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "[stratus] system packages installed"
