#!/usr/bin/env python3
"""audit_check.py OUT -- the energy balance of a run from its files alone
(audit_spec.lua, docs/getting-started.md): for every row of
OUT/history.csv.gz, E - E0 - (W_ext + W_N + W_T + W_J + W_proj + W_theta +
W_damp), all cumulative columns; and the same from OUT/run.json's "energy".
Prints: max_defect=D three_terms=D3 scale=S json_defect=J"""
import csv
import gzip
import json
import sys

out = sys.argv[1]
with gzip.open(out + "/history.csv.gz", "rt") as f:
    rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
W = ["W_ext", "W_N", "W_T", "W_J", "W_proj", "W_theta", "W_damp"]
E0 = float(rows[0]["E"])
defect = three = scale = 0.0
for r in rows:
    E = float(r["E"])
    terms = [float(r[k]) for k in W]
    defect = max(defect, abs(E - E0 - sum(terms)))
    three = max(three, abs(E - E0 - sum(terms[:3])))
    scale = max(scale, abs(E), *(abs(x) for x in terms))
with open(out + "/run.json") as f:
    e = json.load(f)["energy"]
jd = abs(e["E_final"] - e["E0"] - sum(e[k] for k in W))
print("max_defect=%.3e three_terms=%.3e scale=%.3e json_defect=%.3e balance_total=%.3e"
      % (defect, three, scale, jd, abs(e["balance_total"])))
