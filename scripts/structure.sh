#!/usr/bin/env bash
# Structure checks as one command:
#   (a) every .rs file under crates/shangmi/src over 600 lines, except
#       generated tables (a `@generated` marker comment in the first five
#       lines) and the files in OVER_LIMIT_PENDING below;
#   (b) import cycles between the core's modules (scripts/module_cycles.py);
#   (c) the binding inventory's count of `LOGIC?` lines
#       (scripts/binding_inventory.py), reported, not failed on;
#   (d) the house rules DESIGN.md states (scripts/house.py): folders are
#       modules (no `#[path]` but on test modules), one OID module, one curve
#       layer, one constant-time harness, no timing code in examples/, and
#       no words about how the work was organised.
# Exits non-zero when (a), (b) or (d) finds something.
#
#   bash scripts/structure.sh
set -uo pipefail
cd "$(dirname "$0")/.."

LIMIT=600
# Files known to be over the limit while someone splits them: reported,
# not failed on. Remove an entry when its split lands.
OVER_LIMIT_PENDING=()

status=0

echo "-- (a) source files over $LIMIT lines in crates/shangmi/src"
over=0
while IFS= read -r f; do
  n=$(wc -l <"$f")
  [ "$n" -gt "$LIMIT" ] || continue
  if head -n 5 "$f" | grep -q "@generated"; then
    echo "   $f: $n lines (generated table, exempt)"
    continue
  fi
  pending=0
  for p in "${OVER_LIMIT_PENDING[@]}"; do [ "$f" = "$p" ] && pending=1; done
  if [ "$pending" = 1 ]; then
    echo "   $f: $n lines (pending split, listed in OVER_LIMIT_PENDING)"
  else
    echo "   $f: $n lines"
    over=$((over + 1))
  fi
done < <(find crates/shangmi/src -name '*.rs' | sort)
if [ "$over" -gt 0 ]; then
  echo "   FAIL: $over file(s) over $LIMIT lines"
  status=1
else
  echo "   ok"
fi

echo "-- (b) import cycles between core modules"
if ! python3 scripts/module_cycles.py crates/shangmi/src | sed 's/^/   /'; then
  echo "   FAIL: import cycles"
  status=1
fi

echo "-- (c) binding functions with control flow worth a look (LOGIC?)"
echo "   $(python3 scripts/binding_inventory.py --count) (python3 scripts/binding_inventory.py lists them)"

echo "-- (d) house rules"
if ! python3 scripts/house.py | sed 's/^/   /'; then
  status=1
fi

exit "$status"
