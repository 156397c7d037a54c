#!/bin/sh
# The guessing game with the hints swapped (says "lower" when the number is higher).
guesses=0
while :; do
  read g
  guesses=$((guesses + 1))
  if [ "$g" -eq 42 ]; then break; fi
  if [ "$g" -lt 42 ]; then echo -1; else echo 1; fi
done
echo "$guesses"
