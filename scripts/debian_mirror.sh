# shellcheck shell=bash
# Where Debian's archive is, for the scripts that fetch from it (debootstrap, CPython sources):
# DEBIAN_MIRROR, or the mirror this machine's own apt is set up with (a machine behind a local
# mirror or proxy reaches only that one). No mirror's name is written here. Source it (lib.sh
# does). KWCALL_APT_ETC and KWCALL_OS_RELEASE stand in for /etc/apt and /etc/os-release (tests).

# apt_deb_sources: "URI SUITE" for each suite of each enabled "deb" source of this machine's apt
# (sources.list and sources.list.d/*.list, one line each; sources.list.d/*.sources, deb822
# stanzas), in the order apt reads them; only http, https and file URIs (what debootstrap and
# curl read).
apt_deb_sources() {
  local etc=${KWCALL_APT_ETC:-/etc/apt} file lists=() stanzas=()
  for file in "$etc/sources.list" "$etc"/sources.list.d/*.list; do
    [ -f "$file" ] && lists+=("$file")
  done
  for file in "$etc"/sources.list.d/*.sources; do
    [ -f "$file" ] && stanzas+=("$file")
  done
  if ((${#lists[@]})); then
    # "deb [option=value ...] URI SUITE COMPONENT...": the options may hold spaces.
    awk '{ sub(/#.*/, ""); gsub(/\[[^]]*\]/, "") } $1 == "deb" && NF >= 3 { print $2, $3 }' \
      "${lists[@]}"
  fi
  if ((${#stanzas[@]})); then
    awk '
      function flush(   n, m, i, j, uri, suite) {
        if (value["types"] ~ /(^| )deb( |$)/ && tolower(value["enabled"]) !~ /no/) {
          n = split(value["uris"], uri, " "); m = split(value["suites"], suite, " ")
          for (i = 1; i <= n; i++) for (j = 1; j <= m; j++) print uri[i], suite[j]
        }
        delete value; field = ""
      }
      FNR == 1 { flush() }
      /^#/ { next }
      /^[ \t]*$/ { flush(); next }
      /^[ \t]/ { if (field != "") value[field] = value[field] " " $0; next }  # a continuation
      {
        field = tolower(substr($0, 1, index($0, ":") - 1))
        value[field] = substr($0, index($0, ":") + 1)
      }
      END { flush() }' "${stanzas[@]}" | awk '{ $1 = $1; print }'
  fi | awk '$1 ~ /^(https?|file):\/\// { print }'
}

# debian_mirror: DEBIAN_MIRROR, else the archive this machine's apt uses for its own Debian
# suite (or for its first suite that is no -security/-updates one), without a trailing slash.
# Fails, saying what to set, on a machine whose apt names no Debian archive.
debian_mirror() {
  if [ -n "${DEBIAN_MIRROR:-}" ]; then
    echo "${DEBIAN_MIRROR%/}"
    return 0
  fi
  local release=${KWCALL_OS_RELEASE:-/etc/os-release} id codename mirror=""
  # shellcheck disable=SC1090 # os-release is KEY=VALUE lines
  id=$(. "$release" 2>/dev/null && echo "${ID:-}")
  # shellcheck disable=SC1090
  codename=$(. "$release" 2>/dev/null && echo "${VERSION_CODENAME:-}")
  if [ "$id" = debian ]; then
    mirror=$(apt_deb_sources | awk -v suite="$codename" '$2 == suite { print $1; exit }')
    [ -n "$mirror" ] || mirror=$(apt_deb_sources | awk '$2 !~ /[-\/]/ { print $1; exit }')
  fi
  if [ -z "$mirror" ]; then
    echo "no Debian mirror: this machine's apt sources (${KWCALL_APT_ETC:-/etc/apt}/sources.list," \
      "sources.list.d/*.list and *.sources) name no Debian archive${id:+ (this system is $id)};" \
      "set DEBIAN_MIRROR to the URL of one (the folder that holds dists/ and pool/)" >&2
    return 1
  fi
  echo "${mirror%/}"
}

# mirror_fetch PATH OUT: the file PATH of the Debian mirror (debian_mirror) into OUT. When the
# mirror refuses it, says what it answered (a 404: it has no such file) and what to do.
mirror_fetch() {
  local path=$1 out=$2 mirror code status=0 said
  mirror=$(debian_mirror) || return 1
  code=$(curl -fsSL --retry 3 -o "$out" -w '%{http_code}' "$mirror/$path" 2>"$out.curl") ||
    status=$?
  said=$(cat "$out.curl")
  rm -f "$out.curl"
  [ "$status" != 0 ] || return 0
  rm -f "$out"
  if [ "$code" = 404 ]; then
    echo "the Debian mirror $mirror has no $path (it answered HTTP 404: not found);" \
      "set DEBIAN_MIRROR to a mirror that has it" >&2
  else
    echo "could not fetch $mirror/$path (${said:-curl exit $status}, HTTP ${code:-none});" \
      "check the network and the mirror, or set DEBIAN_MIRROR to another one" >&2
  fi
  return 1
}
