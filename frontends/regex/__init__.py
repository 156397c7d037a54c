"""The ``.regex`` frontend: regular specifications decided by Brzozowski derivatives.

:mod:`.terms` (normalised terms and derivatives), :mod:`.parser` (``.regex`` files),
:mod:`.dfa` (automata by derivatives, minimised), :mod:`.acceptor` (the kernel Acceptor),
:mod:`.plugin` (registration).
"""
