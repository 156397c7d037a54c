#!/bin/sh
# Wrong: leaves the first of the n integers out of the sum.
read n
total=0
i=0
while [ "$i" -lt "$n" ]; do
  read x
  if [ "$i" -gt 0 ]; then total=$((total + x)); fi
  i=$((i + 1))
done
echo "$total"
