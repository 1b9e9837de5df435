#!/usr/bin/env bash
# With TRL_LINT_STATIC_LIBS (the default), the executables need no shared library but the C
# library's: tree-sitter, yaml-cpp, toml++ and libstdc++ are linked in (CMakeLists.txt says why).
# A target that links a shared one again (a new dependency, a changed find_package) brings back
# the dynamic loader's work at every start and fails here, naming the library.
set -u
status=0
for bin in "$@"; do
  needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  [ -n "$needed" ] || { echo "FAIL: $bin: readelf found no NEEDED entries (not a dynamic executable?)"; status=1; continue; }
  for lib in $needed; do
    case "$lib" in
      libc.so.*|libm.so.*|ld-linux*) ;;
      *) echo "FAIL: $bin needs the shared library $lib"; status=1 ;;
    esac
  done
  echo "$bin: needs $needed"
done
exit $status
