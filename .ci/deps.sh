# shellcheck shell=bash
# What the tests need from the system, shared by ./test and .ci/run (both
# source this file from the repository root). A tool that is missing is
# installed when that can be done without asking: Debian packages with
# apt-get when running as root, the editor's npm packages with `npm ci`
# when npm exists. Otherwise each function says what is missing.

# missing_packages prints the Debian packages for the tools that are not
# on PATH: the sandbox's prlimit, the C compiler -race needs, Debian's
# Chromium for the browser tests and Node.js with npm for axe-core and the
# editor bundle; PostgreSQL's server binaries for the Postgres half of the
# suite (internal/pgtest starts a throwaway cluster of its own: no service);
# python3 for the Python runtime's tests (internal/faultsim/pyrun).
missing_packages() {
	local need=()
	command -v prlimit >/dev/null 2>&1 || need+=(util-linux)
	command -v gcc >/dev/null 2>&1 || need+=(gcc libc6-dev)
	command -v chromium >/dev/null 2>&1 || need+=(chromium)
	command -v npm >/dev/null 2>&1 || need+=(nodejs npm)
	command -v pg_ctl >/dev/null 2>&1 || compgen -G '/usr/lib/postgresql/*/bin/pg_ctl' >/dev/null || need+=(postgresql)
	command -v python3 >/dev/null 2>&1 || need+=(python3)
	echo "${need[*]}"
}

# install_packages installs what missing_packages names. It returns 1, having
# said what is missing, when that needs root or a machine without apt-get.
install_packages() {
	local need
	need=$(missing_packages)
	[[ -z "$need" ]] && return 0
	if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
		echo "installing: $need"
		export DEBIAN_FRONTEND=noninteractive
		if [[ " $need " == *" postgresql "* ]]; then
			no_postgres_service
		fi
		# shellcheck disable=SC2086 # one word per package
		apt-get update -qq && apt-get install -y -qq --no-install-recommends $need
		return
	fi
	echo "missing: $need (install them, or run as root on Debian/Ubuntu)" >&2
	return 1
}

# no_postgres_service keeps Debian's postgresql package from creating and
# starting a "main" cluster as a system service: the tests start their own
# throwaway cluster (internal/pgtest) and need nothing running. Settings a
# machine already has are left alone.
no_postgres_service() {
	if [[ ! -e /etc/postgresql-common/createcluster.conf ]]; then
		mkdir -p /etc/postgresql-common
		echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.conf
	fi
	# postgresql-common installs that file through ucf: keep this one.
	export UCF_FORCE_CONFFOLD=1
}

# install_npm_packages installs web/editor's locked npm packages (axe-core
# for the browser tests among them) unless they are there already.
install_npm_packages() {
	[[ -f web/editor/node_modules/axe-core/axe.min.js ]] && return 0
	if ! command -v npm >/dev/null 2>&1; then
		echo "missing: npm, for axe-core (web/editor's npm packages)" >&2
		return 1
	fi
	echo "installing web/editor's npm packages (npm ci)"
	(cd web/editor && npm ci --no-audit --no-fund --loglevel=error)
}
