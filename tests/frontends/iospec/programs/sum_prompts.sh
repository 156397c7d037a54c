#!/bin/sh
# A correct summation program that prints how many values are still to come before each read.
read n
total=0
i=$n
while [ "$i" -gt 0 ]; do
  echo "$i"
  read x
  total=$((total + x))
  i=$((i - 1))
done
echo "$total"
