#!/usr/bin/env bash
# Builds the standard build's release binary (Swift runtime linked statically, symbols stripped), as
# benchmarks on a development machine want it (`bench match --reference`), prints its size, and fails
# when it is over budget or carries ICU (the full Foundation's 30+ MB of Unicode tables). What ships to a
# board is Tools/build-board's; CI no longer builds this one (208 s).
#   Tools/build-release.sh [--max-bytes N]      (default budget: 10 MB, the budget Package.swift states)
set -euo pipefail
cd "$(dirname "$0")/.."
max_bytes=$((10000 * 1000))
[ "${1:-}" = "--max-bytes" ] && max_bytes=$2

# SwiftPM links executables with --export-dynamic (so tests can load them): 9,000 symbols and 700 KB of
# dynamic symbol tables that nothing on a board looks up (libcurl is dlopen'ed and needs none of ours).
flags=(-c release --static-swift-stdlib --experimental-lto-mode=full -Xlinker --no-export-dynamic)
mkdir -p .build  # a fresh clone has none yet, and tee would fail before swift build makes it
swift build "${flags[@]}" 2>&1 | tee .build/release-build.log >/dev/null || {
  cat .build/release-build.log; exit 1; }
if grep -q "warning:" .build/release-build.log; then
  grep "warning:" .build/release-build.log; echo "release build has warnings" >&2; exit 1
fi
bin=$(swift build "${flags[@]}" --show-bin-path)/enbeacon
out=.build/enbeacon-release
cp "$bin" "$out"

# ICU shows up either as a dynamic dependency or as its symbols/data linked in.
icu_symbols=$(nm "$out" 2>/dev/null | grep -c -E ' (T|D|R) (u_|ucol_|ubrk_|unorm2_|ucnv_)|icudt' || true)
icu_libs=$(ldd "$out" 2>/dev/null | grep -c -i icu || true)
strip "$out"
size=$(stat -c %s "$out")

echo "binary: $out"
echo "dynamic libraries: $(ldd "$out" | awk '{print $1}' | tr '\n' ' ')"
echo "icu: $icu_symbols symbols, $icu_libs libraries"
echo "size $size bytes"
[ "$icu_symbols" -eq 0 ] && [ "$icu_libs" -eq 0 ] || { echo "the binary contains ICU" >&2; exit 1; }
[ "$size" -le "$max_bytes" ] || { echo "the binary is $size bytes, over the $max_bytes budget" >&2; exit 1; }
