#!/usr/bin/env bash
# scripts/bench/slope_seeds.sh -- the slope flow of Moreau 2004 (section 3.2) at full size for
# several seeds of the grain generator, and the mean and spread of its velocity over them
# (docs/theory/contact-dynamics.md, "Slope flow"). About 6 min of CPU per seed.
#   scripts/bench/slope_seeds.sh                 # seeds 7 8 9 10 11, logs in out/slope_seeds
#   scripts/bench/slope_seeds.sh 7 8             # these seeds
#   OUT=dir scripts/bench/slope_seeds.sh --summary   # only the summary of the logs in dir
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out/slope_seeds}
mkdir -p "$OUT"
if [ "${1:-}" != "--summary" ]; then
  seeds=${*:-7 8 9 10 11}
  for s in $seeds; do
    samples=0; [ "$s" = 7 ] && samples=20      # the dispersion of the default seed
    build/ricochet run scripts/papers/moreau2004_slope_flow.lua --quiet --out "$OUT/seed$s" \
      --set seed="$s" --set samples=$samples > "$OUT/seed$s.log" 2>&1
  done
fi
# one line per seed (the script's verdict on the second half, 4-8 s), then the mean and the
# sample standard deviation of the second-half mean velocities
for f in "$OUT"/seed*.log; do
  s=${f##*seed}; s=${s%.log}
  line=$(grep "second half" "$f")
  caps=$(grep -o "[0-9]* solver failures" "$f" | head -1)
  echo "seed $s: ${line#*: }; $caps (steps at the sweep cap)"
done | sort -t' ' -k2 -n
grep -h "second half" "$OUT"/seed*.log | sed 's/.*mean vx \([0-9.]*\) m\/s.*/\1/' | awk '
  { v[NR] = $1; s += $1 } END {
    m = s / NR; for (i = 1; i <= NR; i++) d += (v[i] - m) ^ 2
    printf "over %d seeds: mean velocity of the second half %.3f m/s, standard deviation %.3f m/s\n", NR, m, sqrt(d / (NR - 1)) }'
grep -c "steady, every" "$OUT"/seed*.log | awk -F: '{ n += $2 } END { printf "steady by the 10 %% test: %d of %d\n", n, NR }'
