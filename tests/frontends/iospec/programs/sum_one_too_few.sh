#!/bin/sh
# Wrong: reads one value too few (n - 1 integers after n), then prints their sum.
read n
total=0
i=1
while [ "$i" -lt "$n" ]; do
  read x
  total=$((total + x))
  i=$((i + 1))
done
echo "$total"
