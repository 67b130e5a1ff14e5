#!/bin/sh
# The idle agent's wake-ups per minute: one agent on the virtual board, left alone for a minute after a 10 s
# settle, its poll(2) calls counted with strace (each is one turn of the loop, i.e. one wake-up) and its
# voluntary context switches read from /proc (poll's sleeps, plus the sleeps of fsync and other I/O).
# Compare builds in one run, on one machine, alternating so that a busy machine weighs on both alike:
#   Tools/metrics/wakeups.sh OLD_BINARY NEW_BINARY [-- extra run arguments for a third run of NEW_BINARY...]
# WAKEUP_SECONDS (60) and WAKEUP_ROUNDS (3) change the length and the repetitions.
set -eu
seconds=${WAKEUP_SECONDS:-60}
rounds=${WAKEUP_ROUNDS:-3}
command -v strace >/dev/null || { echo "wakeups.sh: needs strace (apt-get install strace)" >&2; exit 2; }
measure() {
    binary=$1; shift
    dir=$(mktemp -d)
    "$binary" run --data "$dir/data" --console none --seconds $((seconds + 30)) --log warn "$@" 2>"$dir/log" &
    pid=$!
    sleep 10   # settle: the controller's set-up and the first scan are not idleness
    before=$(awk '/^voluntary_ctxt_switches/ {print $2}' /proc/$pid/status)
    timeout -s INT "$seconds" strace -f -c -e trace=poll,ppoll -o "$dir/strace" -p $pid 2>/dev/null || true
    after=$(awk '/^voluntary_ctxt_switches/ {print $2}' /proc/$pid/status)
    kill $pid; wait $pid 2>/dev/null || true
    polls=$(awk '$NF == "poll" || $NF == "ppoll" {n += $4} END {print n + 0}' "$dir/strace")
    rm -rf "$dir"
    echo "$(( polls * 60 / seconds )) polls, $(( (after - before) * 60 / seconds )) voluntary switches"
}
old=$1; new=$2; shift 2
[ "${1:-}" = "--" ] && shift
echo "wake-ups per minute, idle on the virtual board, ${seconds} s each, ${rounds} rounds:"
round=1
while [ $round -le "$rounds" ]; do
    echo "  round $round: old $(measure "$old") | new $(measure "$new")" \
         "$([ $# -gt 0 ] && echo "| new with $*: $(measure "$new" "$@")")"
    round=$((round + 1))
done
