"""A correct summation program: read n, then n integers, print their sum."""
n = int(input())
total = 0
for _ in range(n):
    total += int(input())
print(total)
