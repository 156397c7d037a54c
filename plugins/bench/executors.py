"""Where tasks run: a local pool (each task its own ``kinduct check`` process) or a Dask cluster.

Both yield ``(task, rows)`` as tasks finish, so the caller writes CSV rows and moves the progress
bar in completion order; a task that fails inside the executor becomes an ``error`` row.
"""

from __future__ import annotations

import concurrent.futures as cf
import time
from collections.abc import Iterator, Sequence

from kinduct.kernel.errors import InputError
from kinduct.plugins.bench.tasks import Task, error_rows, kill_running, run_task


def run_local(tasks: Sequence[Task], jobs: int) -> Iterator[tuple[Task, list[dict]]]:
    """Threads only wait on the task processes, so ``jobs`` processes run at once."""
    pool = cf.ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="bench")
    futures = {pool.submit(run_task, t): t for t in tasks}
    try:
        for fut in cf.as_completed(futures):
            task = futures[fut]
            try:
                yield task, fut.result()
            except Exception as exc:  # a bug in the harness must not end the bench
                yield task, error_rows(task, f"bench harness: {type(exc).__name__}: {exc}", 0.0)
    finally:
        for fut in futures:
            fut.cancel()
        kill_running()
        pool.shutdown(wait=True, cancel_futures=True)


def run_dask(tasks: Sequence[Task], scheduler: str | None, jobs: int) -> Iterator[tuple[Task, list[dict]]]:
    """Submit every task to the Dask scheduler at ``scheduler`` (or to a LocalCluster of
    ``jobs`` single-threaded workers when no address is given)."""
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise InputError("--executor dask needs dask[distributed]: pip install 'kinduct[dask]'") from None
    cluster = None
    try:
        if scheduler:
            client = Client(scheduler, timeout="20s")
        else:
            cluster = LocalCluster(n_workers=max(1, jobs), threads_per_worker=1,
                                   processes=True, dashboard_address=None)
            client = Client(cluster)
    except Exception as exc:  # OSError, TimeoutError, ValueError for a malformed address
        raise InputError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None
    started = time.monotonic()
    try:
        futures = {client.submit(run_task, t, pure=False,
                                 key=f"kinduct-bench-{i}-{t.model.name}-{t.engine}-{t.solver}"): t
                   for i, t in enumerate(tasks)}
        for fut in as_completed(list(futures)):
            task = futures[fut]
            try:
                rows = fut.result()
            except Exception as exc:  # a worker died (KilledWorker) or the task raised
                rows = error_rows(task, f"dask: {type(exc).__name__}: {exc}",
                                  time.monotonic() - started)
            yield task, rows
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
