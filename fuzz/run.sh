#!/usr/bin/env bash
# Builds each libFuzzer target together with PageProxyCore's sources (one module, so `package` declarations are
# visible) and runs it for a bounded time on its committed seed corpus, with AddressSanitizer.
#   bash fuzz/run.sh [seconds per target, default 60] [target …]
# Findings land in fuzz/findings/<target>/; turn each into a regression test before fixing it.
# Exits 1 if any target left a crash file.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzRequestParser FuzzJSONScanner FuzzLinkHeader)
declare -A corpus=([FuzzRequestParser]=request [FuzzJSONScanner]=json [FuzzLinkHeader]=link)
mkdir -p .build
core=$(find ../Sources/PageProxyCore -name '*.swift' | sort)
for target in "${targets[@]}"; do
  echo "== build $target"
  # ld.gold lists every ASan assembly helper it cannot export ("Cannot export local symbol '__asan_…'"): noise
  # from linking the sanitizer runtime, not a problem in our code, so those lines alone are dropped.
  swiftc -O -g -sanitize=fuzzer,address -parse-as-library -swift-version 6 \
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility \
    -package-name PageProxy -module-name "$target" $core "Sources/$target/$target.swift" -o ".build/$target" \
    2> >(grep -v "Cannot export local symbol '__asan" >&2)
done
status=0
for target in "${targets[@]}"; do
  dir="${corpus[$target]}"
  mkdir -p "findings/$target" "work/$dir"
  echo "== $target ($seconds s)"
  ".build/$target" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="findings/$target/" "work/$dir" "corpus/$dir" 2>&1 \
    | grep -E "^(Done|==[0-9]+==ERROR|SUMMARY|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)|Fatal error|precondition" || true
  crashes=$(find "findings/$target" -type f | wc -l)
  echo "crash files: $crashes"
  [ "$crashes" -eq 0 ] || status=1
done
exit $status
