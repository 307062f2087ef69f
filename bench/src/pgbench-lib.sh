# Shared by the pg-*-cost.sh scripts: run a pgbench script against a kept bench database and report
# transactions/s and the machine's CPU time per transaction (all processes, from /proc/stat).
# Expects DB, SECONDS_PER_RUN and SCRIPT (the pgbench script's path) to be set by the caller.
URL_ARGS=(-h "${PGHOST:-127.0.0.1}" -U "${PGUSER:-postgres}")
psql_q() { psql "${URL_ARGS[@]}" -d "$DB" -qAtc "$1"; }

busy() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat; }
# run <label> [pgbench options…]
run() {
  local label=$1
  shift
  read -r b0 t0 < <(busy)
  out=$(pgbench "${URL_ARGS[@]}" -n -M prepared -c 8 -j 2 -T "$SECONDS_PER_RUN" "$@" -f "$SCRIPT" "$DB" 2>&1)
  read -r b1 t1 < <(busy)
  tps=$(grep -oP 'tps = \K[0-9]+' <<<"$out"); tx=$(grep -oP 'processed: \K[0-9]+' <<<"$out")
  ticks=$(getconf CLK_TCK)
  printf '%-48s %6s tx/s  %5s µs CPU/tx  machine %3s %% busy\n' "$label" "$tps" $(( (b1 - b0) * 1000000 / ticks / tx )) $(( 100 * (b1 - b0) / (t1 - t0) ))
}
