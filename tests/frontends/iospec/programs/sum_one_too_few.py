"""Wrong: reads one value too few (n - 1 integers after n), then prints their sum."""
n = int(input())
total = 0
for _ in range(n - 1):
    total += int(input())
print(total)
