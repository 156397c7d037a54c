"""Wrong: reads everything, then loops forever without printing."""
n = int(input())
total = 0
for _ in range(n):
    total += int(input())
while True:
    total += 1
