#!/usr/bin/env bash
# PageProxyCore's documentation, built with the toolchain's own DocC (no swift-docc-plugin, which would be a package
# dependency): symbol graphs from the debug build, every public symbol checked for a `///` comment of its own, then
# `docc convert --warnings-as-errors` over Sources/PageProxyCore/PageProxyCore.docc (broken links, unknown
# parameters and missing articles fail too). Exits non-zero on any of them.
#
#     bash scripts/docc.sh [OUTPUT_DIR]        # default .build/docs
#     python3 -m http.server --bind 127.0.0.1 --directory .build/docs/site 8000
#     # then open http://127.0.0.1:8000/documentation/pageproxycore/
set -euo pipefail
cd "$(dirname "$0")/.."
output=${1:-.build/docs}
toolchain_bin=$(dirname "$(command -v swift)")
docc=${DOCC:-$toolchain_bin/docc}
[ -x "$docc" ] || docc=/opt/swift/usr/bin/docc

swift build --target PageProxyCore
modules="$(swift build --show-bin-path)/Modules"
triple=$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')
graphs=$(mktemp -d)
trap 'rm -rf "$graphs"' EXIT
# PageProxyCore imports the C target CLinux (epoll, eventfd and preadv2, which Glibc's module lacks): its module map,
# which SwiftPM writes into the build directory, must be found too.
bin=$(swift build --show-bin-path)
"$toolchain_bin/swift-symbolgraph-extract" -module-name PageProxyCore -I "$modules" -target "$triple" \
    -Xcc -fmodule-map-file="$bin/CLinux.build/module.modulemap" -I Sources/CLinux/include \
    -minimum-access-level public -output-dir "$graphs"

python3 scripts/docc-undocumented.py "$graphs" PageProxyCore

rm -rf "$output"
mkdir -p "$output"
"$docc" convert Sources/PageProxyCore/PageProxyCore.docc --additional-symbol-graph-dir "$graphs" \
    --output-path "$output/site" --fallback-display-name PageProxyCore \
    --fallback-bundle-identifier org.pageproxy.PageProxyCore --transform-for-static-hosting \
    --warnings-as-errors --experimental-documentation-coverage --coverage-summary-level brief
echo "documentation: $output/site (open /documentation/pageproxycore/ over HTTP)"
