#!/bin/sh
# Wrong: reads everything and prints nothing.
read n
i=0
while [ "$i" -lt "$n" ]; do
  read x
  i=$((i + 1))
done
