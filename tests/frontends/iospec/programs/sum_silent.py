"""Wrong: reads everything and prints nothing."""
n = int(input())
for _ in range(n):
    input()
