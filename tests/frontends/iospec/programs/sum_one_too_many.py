"""Wrong: reads one value too many (n + 1 integers after n)."""
n = int(input())
total = 0
for _ in range(n + 1):
    total += int(input())
print(total)
