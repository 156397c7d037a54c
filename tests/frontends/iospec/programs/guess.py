"""The guessing game of examples/iospec/guessing.iospec (hidden number 42), correct."""
guesses = 0
while True:
    g = int(input())
    guesses += 1
    if g == 42:
        break
    print(1 if g < 42 else -1)
print(guesses)
