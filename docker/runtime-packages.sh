#!/usr/bin/env bash
# Prints, one per line, the Debian packages holding the shared libraries that an executable
# links (ldd, then dpkg -S): what docker/Dockerfile's runtime stage installs, so that a library
# added to the build needs no edit here. Fails when a library belongs to no package.
#   bash docker/runtime-packages.sh build/bin/trunkfield-server
set -euo pipefail
exe=${1:?usage: runtime-packages.sh EXECUTABLE}
libs=$(ldd "$exe" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | sort -u)
for lib in $libs; do
  pkg=""
  # Debian 12 links /lib to /usr/lib; dpkg knows each file under the one path its package used.
  for path in "$lib" "$(readlink -f "$lib")" "/usr$lib"; do
    pkg=$(dpkg -S "$path" 2>/dev/null | awk -F: '!/^diversion/ {print $1; exit}') || true
    [[ -n "$pkg" ]] && break
  done
  if [[ -z "$pkg" ]]; then
    echo "runtime-packages: no Debian package holds $lib" >&2
    exit 1
  fi
  echo "$pkg"
done | sort -u
