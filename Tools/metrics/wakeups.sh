#!/bin/sh
# The idle agent's wake-ups per minute: one agent on the virtual board, left alone, its voluntary context
# switches (each poll(2) that sleeps and wakes is one) counted from /proc over a minute after a 10 s settle.
# Compare builds in one run, on one machine:
#   Tools/metrics/wakeups.sh OLD_BINARY NEW_BINARY [-- extra run arguments for NEW_BINARY...]
# e.g. the build before the metrics work against this one with metrics off, then with them on.
set -eu
seconds=${WAKEUP_SECONDS:-60}
measure() {
    binary=$1; shift
    dir=$(mktemp -d)
    "$binary" run --data "$dir/data" --console none --seconds $((seconds + 30)) --log warn "$@" 2>"$dir/log" &
    pid=$!
    sleep 10   # settle: the controller's set-up and the first scan are not idleness
    before=$(awk '/^voluntary_ctxt_switches/ {print $2}' /proc/$pid/status)
    sleep "$seconds"
    after=$(awk '/^voluntary_ctxt_switches/ {print $2}' /proc/$pid/status)
    kill $pid; wait $pid 2>/dev/null || true
    rm -rf "$dir"
    echo $(( (after - before) * 60 / seconds ))
}
old=$1; new=$2; shift 2
[ "${1:-}" = "--" ] && shift
echo "wake-ups per minute, idle on the virtual board, ${seconds} s each:"
echo "  $old: $(measure "$old")"
echo "  $new: $(measure "$new")"
if [ $# -gt 0 ]; then echo "  $new $*: $(measure "$new" "$@")"; fi
