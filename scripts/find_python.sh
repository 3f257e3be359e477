#!/usr/bin/env bash
# Print the path of a Python >= 3.12: PATH first, then pyenv's installed versions.
# Exit 1 with advice when there is none.
set -u
ok() { "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; }
for name in python3.12 python3.13 python3 python; do
  p=$(command -v "$name" 2>/dev/null) || continue
  # pyenv shims answer on PATH but may point at another version: ok() runs the real thing.
  if ok "$p"; then "$p" -c 'import sys; print(sys.executable)'; exit 0; fi
done
roots=()
command -v pyenv >/dev/null 2>&1 && roots+=("$(pyenv root)")
roots+=("${PYENV_ROOT:-$HOME/.pyenv}")
for root in "${roots[@]}"; do
  for p in $(ls -d "$root"/versions/3.1[2-9]*/bin/python3 2>/dev/null | sort -V); do
    if ok "$p"; then echo "$p"; exit 0; fi
  done
done
echo "sideways needs Python >= 3.12 and found none (looked on PATH and in pyenv's versions)." >&2
echo "Install one, e.g. 'pyenv install 3.12' or your system's python3.12 package, then run make again." >&2
exit 1
