# bench/profile/cgtop.py A.out B.out CALLS [--inclusive] [TOP]: per-call instruction difference (B - A) / CALLS
# per function, from callgrind_annotate.
import re, subprocess, sys
a, b, calls = sys.argv[1], sys.argv[2], int(sys.argv[3])
incl = "--inclusive" in sys.argv
top = int(next((x for x in sys.argv[4:] if x.isdigit()), 40))
def load(f):
    args = ["callgrind_annotate", "--threshold=100", f] + (["--inclusive=yes"] if incl else [])
    out = subprocess.run(args, capture_output=True, text=True).stdout
    d = {}
    tot = 0
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+(.*)", line)
        if not m: continue
        n = int(m.group(1).replace(",", ""))
        name = m.group(2)
        if "PROGRAM TOTALS" in name: tot = n; continue
        name = re.sub(r"^\S+?:", "", name, count=1) if ":" in name.split(" ")[0] else name
        d[name] = d.get(name, 0) + n
    return tot, d
ta, da = load(a); tb, db = load(b)
print(f"total per call: {(tb - ta) / calls:,.0f}")
diff = sorted(((db.get(k, 0) - da.get(k, 0)) / calls, k) for k in set(da) | set(db))
for v, k in sorted(diff, reverse=True)[:top]:
    print(f"{v:10,.0f}  {k[:150]}")
