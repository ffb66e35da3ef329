#!/usr/bin/env bash
# Runs the whole test suite under AddressSanitizer and ThreadSanitizer (issue 8), each in its own build folder.
#   bash scripts/sanitizers.sh            # both
#   bash scripts/sanitizers.sh thread     # one of: address, thread
# Not part of .ci/run: on 2 cores the two sanitized builds and runs take about half an hour (see FUZZING.md).
# Tests run one at a time (--no-parallel): sanitized code is several times slower, and the end-to-end tests'
# 30 s client timeouts are meant for a machine that is not running 40 sanitized servers at once.
set -euo pipefail
cd "$(dirname "$0")/.."
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(address thread)
# TSan: only the reports listed in scripts/tsan-suppressions.txt are silenced; each entry says why it is a false
# positive. Any other report is printed (the run goes on, to show them all) and fails the script.
export TSAN_OPTIONS="suppressions=$PWD/scripts/tsan-suppressions.txt halt_on_error=0 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
export ASAN_OPTIONS="halt_on_error=1 detect_stack_use_after_return=1 ${ASAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-suppressions.txt ${LSAN_OPTIONS:-}"
status=0
for kind in "${kinds[@]}"; do
  case "$kind" in
    address) path=.build-asan ;;
    thread) path=.build-tsan ;;
    *) echo "unknown sanitizer: $kind (address or thread)" >&2; exit 2 ;;
  esac
  start=$(date +%s)
  echo "== $kind: build ($path)"
  # ld.gold lists every ASan helper it cannot export ("Cannot export local symbol '__asan_…'"): linker noise.
  swift build --build-tests -c debug --sanitize="$kind" --build-path "$path" 2>&1 \
    | (grep -v "Cannot export local symbol '__asan" || true)
  echo "== $kind: test"
  set +e
  swift test --skip-build --no-parallel --sanitize="$kind" --build-path "$path" 2>&1 | tee "$path/sanitizer-test.log" \
    | grep -E "^(✘|✔ Test run|WARNING: ThreadSanitizer|==[0-9]+==ERROR|SUMMARY)"
  code=${PIPESTATUS[0]}
  set -e
  [ "$code" -eq 0 ] || status=1
  grep -q "Test run with .* passed" "$path/sanitizer-test.log" || status=1
  reports=$(grep -cE "WARNING: ThreadSanitizer|ERROR: (Address|Leak)Sanitizer" "$path/sanitizer-test.log" || true)
  echo "== $kind: $reports sanitizer report(s)"
  [ "$reports" -eq 0 ] || status=1
  echo "== $kind: $(( $(date +%s) - start )) s, log in $path/sanitizer-test.log"
done
exit $status
