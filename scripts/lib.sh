# Shared by kwcall's scripts: steps that say what they do, full logs in build/logs/, finding
# Python interpreters, and virtual environments with the tested packages. Source it.
KWCALL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The CPython versions kwcall supports and tests (pyproject.toml's classifiers say the same);
# 3.13t is free-threaded CPython 3.13.
SUPPORTED_PYTHONS=(3.10 3.11 3.12 3.13 3.13t 3.14 3.15)
KWCALL_LOGS=${KWCALL_LOGS:-$KWCALL_ROOT/build/logs}
mkdir -p "$KWCALL_LOGS"
# debian_mirror, mirror_fetch: where Debian's archive is, and fetching from it.
# shellcheck source=scripts/debian_mirror.sh
source "$KWCALL_ROOT/scripts/debian_mirror.sh"

# step MESSAGE: a visible heading for what comes next.
step() { printf '\n==> %s\n' "$*"; }

# elapsed START: "3 min 12 s" since START (a $SECONDS value).
elapsed() { printf '%d min %d s' $(((SECONDS - $1) / 60)) $(((SECONDS - $1) % 60)); }

# logged_ok LOG COMMAND...: runs COMMAND with its output appended to LOG; on failure shows the
# end of LOG and where the whole of it is, and returns COMMAND's status.
logged_ok() {
  local log=$1 status=0
  shift
  printf '$ %s\n' "$*" >>"$log"
  "$@" >>"$log" 2>&1 || status=$?
  if [ "$status" != 0 ]; then
    printf '    failed: %s\n    last lines of %s:\n' "$*" "$log"
    tail -30 "$log" | sed 's/^/    | /'
  fi
  return $status
}

# logged LOG COMMAND...: logged_ok, exiting on failure.
logged() { logged_ok "$@" || exit 1; }

# release_version VERSION: whether VERSION reads as a package release ("4.8.1", "0.1.13.post3"):
# a digit first, then letters, digits and ".+_-", no "/" and no "..", so that a folder named
# after it (build/cute/VERSION) is one folder where it should be.
release_version() { [[ $1 =~ ^[0-9][0-9A-Za-z.+_-]*$ && $1 != *..* ]]; }

# refuse_unless_releases SCRIPT PACKAGE VERSION...: fails, saying what is wrong and what to pass,
# unless every VERSION is a release_version.
refuse_unless_releases() {
  local script=$1 package=$2 version
  shift 2
  for version in "$@"; do
    release_version "$version" && continue
    echo "$script: '$version' is not a $package release version (such as 1.2.3 or 0.1.13.post3):" \
      "each argument names a release, and an environment folder is made for it; pass" \
      "versions only" >&2
    return 1
  done
}

# as_root COMMAND...: COMMAND as root: directly when this is root, through sudo otherwise. What
# needs root: apt-get, and debootstrap, the mounts and chroot of the Debian roots (roots.sh).
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo "$@"
  else
    echo "this step needs root: $*" >&2
    echo "run it as root, or install sudo and allow this user to use it" >&2
    return 1
  fi
}

# apt_install LOG PACKAGE...: installs the Debian packages that are missing (as root). The apt
# configuration a Debian root gets from this machine (APT_CONFIG, roots.sh) reaches apt-get
# through sudo too.
apt_install() {
  local log=$1 missing=() pkg
  shift
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
      missing+=("$pkg")
  done
  ((${#missing[@]})) || return 0
  step "apt-get install ${missing[*]} (as root; log: $log)"
  local apt=(as_root env DEBIAN_FRONTEND=noninteractive ${APT_CONFIG:+APT_CONFIG="$APT_CONFIG"} apt-get)
  logged "$log" "${apt[@]}" update
  logged "$log" "${apt[@]}" install -y "${missing[@]}"
}

# What the scripts call a Python: "3.12", or "3.13t" for a free-threaded build (no GIL).
PYTHON_VERSION_TAG='import sys, sysconfig
print("%d.%d%s" % (*sys.version_info[:2], "t" * bool(sysconfig.get_config_var("Py_GIL_DISABLED"))))'
# Where scripts/free_threaded_python.sh builds the free-threaded Pythons (3.13t).
KWCALL_PYTHONS=${KWCALL_PYTHONS:-$KWCALL_ROOT/build/pythons}

# free_threaded VERSION: whether VERSION names a free-threaded Python ("3.13t").
free_threaded() { [[ $1 == *t ]]; }

# find_python VERSION (3.12, 3.13t): the interpreter's path, from PATH, pyenv or (free-threaded)
# build/pythons; empty when absent.
find_python() {
  local version=$1 candidate
  for candidate in "python$version" \
    "$(pyenv root 2>/dev/null)"/versions/"$version"*/bin/"python$version" \
    "$KWCALL_PYTHONS/$version/bin/python$version"; do
    candidate=$(command -v "$candidate" 2>/dev/null) || continue
    if [ "$(python_version "$candidate" 2>/dev/null)" = "$version" ]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

# distribution_python: the distribution's own python3 (Debian 12's is 3.11.2), installed by
# its package manager; empty when there is none. Its behaviour can differ from pyenv's build of
# the same minor version (3.11.7), so CI tests it too.
distribution_python() {
  local python=/usr/bin/python3
  [ -x "$python" ] && command -v dpkg >/dev/null &&
    dpkg -S "$(readlink -f "$python")" >/dev/null 2>&1 && echo "$python"
}

# venv_path [VERSION]: the virtual environment for python3 (.venv) or for Python VERSION
# (.venv-VERSION); KWCALL_VENV overrides both.
venv_path() {
  if [ -n "${KWCALL_VENV:-}" ]; then echo "$KWCALL_VENV"
  elif [ -n "${1:-}" ]; then echo "$KWCALL_ROOT/.venv-$1"
  else echo "$KWCALL_ROOT/.venv"; fi
}

# python_version PYTHON: "3.11", or "3.13t" for a free-threaded build.
python_version() { "$1" -c "$PYTHON_VERSION_TAG"; }

# debian_python_packages PYTHON LOG: when PYTHON is Debian's own (/usr/bin/python3.11), what
# Debian packages apart from the interpreter: python3.X-venv (venv needs its ensurepip) and
# python3.X-dev (the headers kwcall's extension is built against). Other Pythons (pyenv's, a
# build of one's own) come with both.
debian_python_packages() {
  local python=$1 log=$2 real version
  real=$(readlink -f "$(command -v "$python")") || return 0
  command -v dpkg >/dev/null && dpkg -S "$real" >/dev/null 2>&1 || return 0
  version=$(python_version "$python")
  apt_install "$log" "python$version-venv" "python$version-dev"
}

# ensure_venv PYTHON VENV LOG: a virtual environment with the pins for PYTHON installed
# (scripts/pins.py: requirements/tested.txt's, with requirements/free-threaded.txt's in their
# place on a free-threaded Python), redone only when they or the interpreter changed.
ensure_venv() {
  local python=$1 venv=$2 log=$3 pins=$2/kwcall-requirements.txt stamp=$2/.kwcall-requirements
  debian_python_packages "$python" "$log"
  if [ ! -x "$venv/bin/python" ]; then
    step "create $venv ($("$python" --version 2>&1))"
    logged "$log" "$python" -m venv "$venv"
  fi
  "$venv/bin/python" "$KWCALL_ROOT/scripts/pins.py" >"$pins"
  if ! { "$venv/bin/python" --version; cat "$pins"; } 2>&1 | cmp -s - "$stamp"; then
    step "pip install -r $pins: the pins for Python $(python_version "$venv/bin/python")" \
      "(scripts/pins.py; log: $log)"
    sed 's/^/    /' "$pins"
    logged "$log" "$venv/bin/python" -m pip install --disable-pip-version-check -r "$pins"
    { "$venv/bin/python" --version; cat "$pins"; } >"$stamp" 2>&1
  fi
}
