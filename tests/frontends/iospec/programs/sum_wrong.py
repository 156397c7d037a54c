"""Wrong: includes the count n in the sum it prints."""
n = int(input())
total = n
for _ in range(n):
    total += int(input())
print(total)
