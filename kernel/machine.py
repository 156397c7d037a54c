"""How much of the machine a run can count on: the cores this process may use and how many
other processes want them now (:func:`measure`), and what the runner makes of it
(:mod:`kinduct.kernel.runner`, :mod:`kinduct.kernel.quick`).

Linux shares the cores evenly between runnable processes, so on a machine with ``o`` other
processes and ``c`` cores one process of ours gets ``c / (o + 1)`` of a core and ``k`` of them
get ``k c / (o + k)`` together.  Hence:

- **Not saturated**: the quick phase (the engines one after the other in the runner's
  process) takes one core; its slices are wall-clock seconds, stretched by the share the
  process measurably gets (:meth:`Machine.stretch`, then the quick phase's own measurement),
  so that it decides on a busy machine what it decides on an idle one.  After its first
  slice the quick engines that prepare nothing get processes beside it, one per further free
  core and at least one (the runner's ``_beside``).
- **A saturated machine** (:meth:`Machine.saturated`: at least :data:`SATURATED_PER_CORE`
  other processes per core): one process is starved where several are not, so the quick phase
  keeps its first slice only and every engine gets its process at once, as Kind 2 runs its
  engines: the run then takes the share Kind 2 takes.  An engine that needs ``X`` seconds of
  CPU after ``S`` seconds of earlier slices is decided sooner sequentially only while
  ``S (o + 1) < X (k - 1)``; with ``X`` about ``S`` and the portfolio's six engines that is
  ``o < 4``, two per core on the 2-core machine where it was measured.

The estimate of the others: the runnable processes now (``/proc/loadavg``'s fourth field, less
this one), bounded by the one-minute load average (which lags, and counts this run's own
processes of a minute ago), so that neither a momentary burst nor the past of the machine alone
takes cores away.
"""

from __future__ import annotations

import math
import os
import statistics
import time

import attrs

#: The largest factor by which the quick phase's slices are stretched: a loaded machine
#: delays the engine processes by at most this many times the idle quick phase.
MAX_STRETCH = 4.0
#: Other runnable processes per core from which the machine counts as saturated.
SATURATED_PER_CORE = 2.0
#: Snapshots of the runnable tasks on a busy machine (:func:`measure`).
SAMPLES = 3


def slowdown(wall: float, cpu: float) -> float:
    """How many times slower than its own processor time a stretch of this process's work ran
    (``wall`` clock over ``cpu`` seconds: the machine's other load), between 1 and
    :data:`MAX_STRETCH`: the factor a wall-clock limit needs to buy the same work."""
    return min(MAX_STRETCH, max(1.0, wall / cpu))


@attrs.frozen
class Machine:
    """``cores``: the cores this process may run on; ``others``: how many other processes want
    them (a fraction: an average)."""

    cores: int
    others: float = 0.0

    @property
    def free(self) -> int:
        """Cores no other process wants, rounded to the nearest whole core."""
        return max(0, min(self.cores, math.floor(self.cores - self.others + 0.5)))

    @property
    def share(self) -> float:
        """The fraction of a core one more process of ours can expect (1 when a core is free)."""
        return min(1.0, self.cores / (self.others + 1.0))

    def stretch(self) -> float:
        """The factor a wall-clock slice needs to buy a slice's work (1 when a core is free;
        at most :data:`MAX_STRETCH`)."""
        return min(MAX_STRETCH, 1.0 / self.share)

    def saturated(self) -> bool:
        """Whether at least :data:`SATURATED_PER_CORE` other processes want each core: then the
        runner forks every engine at once instead of running them one after the other."""
        return self.others >= SATURATED_PER_CORE * self.cores


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity; the machine's count elsewhere)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _runnable_now() -> int | None:
    """The kernel's count of runnable tasks at this moment, this process included (None when
    the system does not say)."""
    try:
        with open("/proc/loadavg") as fh:
            return int(fh.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return None


def measure() -> Machine:
    """The machine as this process sees it now: on a machine whose load average is below its
    cores, one snapshot of the runnable tasks (microseconds); on a busier one the median of
    :data:`SAMPLES` snapshots half a millisecond apart (a snapshot alone is noisy: 7 to 20 within
    a second at a load average of 15)."""
    cores = usable_cores()
    try:
        average = os.getloadavg()[0]
    except (AttributeError, OSError):
        average = 0.0
    now = _runnable_now()
    if now is not None and average >= cores:
        samples = [now]
        for _ in range(SAMPLES - 1):
            time.sleep(0.0005)
            samples.append(_runnable_now() or now)
        now = statistics.median(samples)
    others = average if now is None else min(average, max(0, now - 1))
    return Machine(cores=cores, others=max(0.0, others))


def given(cores: int) -> Machine:
    """A machine of ``cores`` free cores (``--cores``: the user says what the run may use)."""
    return Machine(cores=max(1, cores), others=0.0)


def grouped_scheduling() -> bool:
    """Whether Linux schedules by session groups here (autogroup: every session, hence every
    engine process, which leads its own, gets an equal share of the cores whatever the
    niceness of its processes; only the group's own niceness, :func:`set_group_niceness`,
    weighs between them).  False where this process sits in a task group of its own (a
    container's cgroup with the cpu controller): autogroup then leaves it alone, its
    ``/proc/self/autogroup`` is empty, and plain niceness weighs as usual."""
    try:
        with open("/proc/sys/kernel/sched_autogroup_enabled") as fh:
            if fh.read().strip() != "1":
                return False
        with open("/proc/self/autogroup") as fh:
            return fh.read().startswith("/autogroup-")
    except OSError:
        return False


def set_group_niceness(pid: int, nice: int) -> bool:
    """Set the niceness (0..19) of the scheduling group of ``pid``, a process that leads its
    own session (never the caller's group: False when ``pid`` does not lead one yet); False
    also when the kernel refuses now (without privileges it takes one such change every
    0.1 s from the whole machine: the caller tries again later)."""
    try:
        if os.getsid(pid) != pid:
            return False
        with open(f"/proc/{pid}/autogroup", "w") as fh:
            fh.write(str(max(0, min(19, nice))))
    except OSError:
        return False
    return True
