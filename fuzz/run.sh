#!/usr/bin/env bash
# Builds each libFuzzer target together with PageProxyCore's sources (one module, so `package` declarations are
# visible) and runs it for a bounded time on its committed seed corpus, with AddressSanitizer.
#   bash fuzz/run.sh [seconds per target, default 60]
# Findings land in fuzz/findings/<target>/; turn each into a regression test before fixing it.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
mkdir -p .build
core=$(find ../Sources/PageProxyCore -name '*.swift' | sort)
for pair in FuzzRequestParser:request FuzzJSONScanner:json FuzzLinkHeader:link; do
  target="${pair%%:*}"; corpus="${pair##*:}"
  swiftc -O -g -sanitize=fuzzer,address -parse-as-library -swift-version 6 \
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility \
    -package-name PageProxy -module-name "$target" $core "Sources/$target/$target.swift" -o ".build/$target"
  mkdir -p "findings/$target" "work/$corpus"
  echo "== $target ($seconds s)"
  ".build/$target" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="findings/$target/" "work/$corpus" "corpus/$corpus" 2>&1 \
    | grep -E "^(Done|==[0-9]+==ERROR|SUMMARY|stat::number_of_executed_units|stat::peak_rss_mb)" || true
  echo "crash files: $(find "findings/$target" -type f | wc -l)"
done
