#!/bin/sh
# A correct summation program: read n, then n integers, print their sum.
read n
total=0
i=0
while [ "$i" -lt "$n" ]; do
  read x
  total=$((total + x))
  i=$((i + 1))
done
echo "$total"
