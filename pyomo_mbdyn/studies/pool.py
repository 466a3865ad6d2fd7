"""Supervised worker processes: a lost or overrunning process costs one task, never the study.

A :class:`concurrent.futures.ProcessPoolExecutor` whose worker dies (killed by the
out-of-memory killer, a segmentation fault in a C library, ``kill -9``) is *broken*:
every task it had not finished fails with ``BrokenProcessPool``, also those that
were running on healthy processes or had not started, and it runs nothing more.  It
cannot stop one task either.  :func:`run_supervised` runs tasks on processes of its
own instead, one task at a time per process, so that it always knows which task is
on which process:

* a process that ends without answering (any signal, any exit status) costs the
  task it was running, reported as lost with the signal or the exit status; a new
  process takes its place for the tasks that remain;
* with ``timeout``, a task that has run for ``timeout`` seconds (counted from the
  moment its process takes it: a fresh process's start-up does not count, up to
  :data:`STARTUP` seconds) is reported as timed out and its process is killed and
  replaced;
* the other tasks run undisturbed, and every result that came back is yielded.

The processes start with the "spawn" method (fresh interpreters: safe with the
threads of CasADi and BLAS), ignore Ctrl-C (the parent stops them: they are killed
when the parent leaves :func:`run_supervised` in any way), and run ``initializer(*initargs)``
first, as a process pool's workers do.

:func:`run_on_executor` runs the tasks on an executor the caller gives (a process
pool, a thread pool, a Dask cluster's) and survives what that executor allows:

* a task whose future raises (Dask's ``KilledWorker`` after a worker died three
  times, a cancelled future) is reported as failed, with the exception;
* a ``ProcessPoolExecutor`` that breaks cannot run anything more: the tasks it did
  not finish (also those that had not started) are run again by
  :func:`run_supervised` on as many processes as it had, with its initializer,
  where a task that ends its process again is reported as lost;
* with ``timeout``, at most as many tasks as the executor has workers are handed to
  it at a time, so that a task runs from the moment it is handed over, and a task
  that has not answered ``timeout`` seconds later is reported as timed out.  A
  process pool's processes are then killed (the pool breaks, the unfinished tasks
  run again as above); a thread or a Dask worker cannot be stopped from outside: it
  stays busy with the abandoned task until that returns, and the study goes on with
  the other workers (with none left, the remaining tasks are reported as not run);
* a Dask cluster that has lost every worker would leave its futures pending for
  ever: while no task ends, the study asks the scheduler for workers every
  :data:`POLL` seconds, and when it has had none for :data:`NO_WORKERS` seconds
  the unfinished tasks are reported as failed ("the Dask cluster has no workers")
  instead of waiting for workers that may never come.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future
from typing import Any

import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

__all__ = ["run_supervised", "run_on_executor", "LOST", "TIMEOUT", "STARTUP", "POLL", "NO_WORKERS"]

#: status of a task whose process was lost, and of a task that ran out of time
LOST, TIMEOUT = "error", "timeout"

#: seconds between two looks at a Dask cluster's workers while no task ends
POLL = 10.0
#: seconds a Dask cluster may have no worker before its unfinished tasks are reported as failed
NO_WORKERS = 120.0

#: seconds a worker has to leave after being asked to (then it is killed)
_GRACE = 5.0

#: the longest single wait for an answer (seconds): a longer ``timeout`` (``1e308``, "no limit
#: in practice") is waited for in such slices, as the operating system's wait cannot take it
#: (``OverflowError``)
_LONGEST_WAIT = 3600.0

#: seconds a fresh process may take to start and take its task before the task's
#: ``timeout`` starts to count anyway (a process that never starts must not hang the study)
STARTUP = 120.0


def _serve(conn, initializer, initargs):
    """A worker's loop: receive ``(function, argument)``, say ``("started", None)``, answer
    ``("done", result)`` or ``("raised", message)``; leave on ``None`` or when the parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the parent, which stops us
    if initializer is not None:
        initializer(*initargs)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        except Exception as err:  # the task could not be unpickled here
            if not _answer(conn, ("raised", f"the task could not be received by its worker: "
                                            f"{type(err).__name__}: {err}")):
                return
            continue
        if message is None:
            return
        function, argument = message
        if not _answer(conn, ("started", None)):  # the task's time runs from here, not from the start-up
            return
        try:
            reply = ("done", function(argument))
        except BaseException as err:  # the worker stays: the parent decides what a failure means
            reply = ("raised", f"{type(err).__name__}: {err}")
        if not _answer(conn, reply):
            return


def _answer(conn, reply):
    """Send ``reply`` to the parent (an unpicklable result as a failure); False when the parent is gone."""
    try:
        conn.send(reply)
    except OSError:
        return False
    except Exception as err:  # an unpicklable result
        return _answer(conn, ("raised", f"the result could not be sent back: {type(err).__name__}: {err}"))
    return True


class _Worker:
    """One process and the parent's end of its pipe; ``task`` and ``started`` while busy."""

    def __init__(self, context, initializer, initargs):
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, initializer, initargs),
                                       name="pyomo_mbdyn-study-worker")
        self._start()
        child.close()
        self.task = self.sent = self.started = None

    def _start(self):
        """Start the process with SIGINT blocked in it from its first instruction: a Ctrl-C
        in the terminal reaches every process of the group, and a worker still importing
        (before :func:`_serve` ignores SIGINT) would print a ``KeyboardInterrupt``
        traceback of its own.  The signal mask is inherited across the "spawn" start
        method's fork and exec; the parent's own mask is restored at once (a Ctrl-C that
        arrived meanwhile is delivered to the parent then)."""
        blocked = threading.current_thread() is threading.main_thread() and hasattr(signal, "pthread_sigmask")
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if blocked else None
        try:
            self.process.start()
        finally:
            if blocked:
                signal.pthread_sigmask(signal.SIG_SETMASK, previous)

    def ended(self):
        """How the process ended, in words (it has ended or is made to)."""
        self.process.join(_GRACE)
        code = self.process.exitcode
        if code is None:
            return "it stopped answering"
        if code < 0:
            try:
                return f"killed by signal {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"it exited with status {code}"

    def kill(self, grace=0.0):
        """Kill the process, after ``grace`` seconds to leave by itself; close the pipe."""
        self.process.join(grace)
        if self.process.is_alive():
            self.process.kill()
        self.process.join(_GRACE)
        self.conn.close()

    def ask_to_leave(self):
        """Ask an idle worker to leave (then :meth:`kill` waits for it, and kills it if it stays)."""
        try:
            self.conn.send(None)
        except OSError:
            pass


def _deadline(worker, timeout):
    """When the task of a busy worker runs out of time (monotonic clock)."""
    return (worker.sent + STARTUP if worker.started is None else worker.started) + timeout


def run_supervised(tasks: Iterable[Any], function: Callable[[Any], Any], workers: int, timeout: float | None = None,
                   initializer: Callable[..., Any] | None = None, initargs: tuple[Any, ...] = (),
                   context: Any = None) -> Iterator[tuple[Any, Any, tuple[str, str] | None]]:
    """Run ``function(task)`` for every task on at most ``workers`` processes of its own;
    yield ``(task, result, failure)`` as each task ends, in the order they end.

    ``failure`` is None when ``function`` returned ``result``; otherwise ``result`` is
    None and ``failure`` is ``(status, message)``: ``("error", …)`` when the function
    raised (the message is the exception's type and text) or when the task's process
    was lost (the message says ``worker lost`` and how the process ended: the signal
    that killed it or its exit status), ``("timeout", …)`` when the task ran for
    ``timeout`` seconds (its process is killed).  A lost or killed process is replaced
    for the tasks that remain.  Every process is stopped when the generator ends,
    also when the caller stops early or an exception (Ctrl-C) passes through.

    ``function``, the tasks, ``initializer`` and ``initargs`` must be picklable
    (module-level functions).  ``context``: a :mod:`multiprocessing` context
    (default "spawn").
    """
    context = context or multiprocessing.get_context("spawn")
    pending = deque(tasks)
    idle: list[_Worker] = []
    busy: list[_Worker] = []
    try:
        while pending or busy:
            while pending and (idle or len(idle) + len(busy) < workers):
                try:
                    worker = idle.pop() if idle else _Worker(context, initializer, initargs)
                except Exception as err:  # no process to be had (the system's limits): use those running
                    if busy:
                        break
                    task = pending.popleft()
                    yield task, None, (LOST, f"not run: no worker process could be started "
                                             f"({type(err).__name__}: {err})")
                    continue
                task = pending.popleft()
                try:
                    worker.conn.send((function, task))
                except OSError:  # the process is gone already (its initializer failed)
                    how = worker.ended()
                    worker.kill()
                    yield task, None, (LOST, f"worker lost: its process ended before taking the task ({how})")
                    continue
                except Exception as err:  # the task cannot be pickled: the worker stays idle
                    idle.append(worker)
                    yield task, None, ("error", f"the task could not be sent to a worker: {type(err).__name__}: {err}")
                    continue
                worker.task, worker.sent, worker.started = task, time.monotonic(), None
                busy.append(worker)
            if not busy:
                continue
            wait = None
            if timeout is not None:
                wait = min(_LONGEST_WAIT, max(0.0, min(_deadline(w, timeout) for w in busy) - time.monotonic()))
            ready = multiprocessing.connection.wait([w.conn for w in busy] + [w.process.sentinel for w in busy],
                                                    wait)
            now = time.monotonic()
            for worker in list(busy):
                task = worker.task
                if worker.conn in ready or worker.conn.poll():
                    try:
                        kind, value = worker.conn.recv()
                    except (EOFError, OSError):  # the process died while answering, or before
                        busy.remove(worker)
                        how = worker.ended()
                        worker.kill()
                        yield task, None, (LOST, f"worker lost: its process ended while running this task ({how})")
                        continue
                    except Exception as err:  # an answer that cannot be unpickled here
                        kind, value = "raised", f"the result could not be received: {type(err).__name__}: {err}"
                    if kind == "started":
                        worker.started = now
                        continue
                    busy.remove(worker)
                    worker.task = worker.started = None
                    idle.append(worker)
                    yield (task, value, None) if kind == "done" else (task, None, ("error", value))
                elif worker.process.sentinel in ready:
                    busy.remove(worker)
                    how = worker.ended()
                    worker.kill()
                    yield task, None, (LOST, f"worker lost: its process ended while running this task ({how})")
                elif timeout is not None and now >= _deadline(worker, timeout):
                    busy.remove(worker)
                    worker.kill()
                    yield task, None, (TIMEOUT, f"timed out: no result within task_timeout = {timeout:g} s; "
                                                f"its worker process was killed")
    finally:
        for worker in idle:
            worker.ask_to_leave()
        for worker in busy:
            worker.kill()
        for worker in idle:
            worker.kill(grace=_GRACE)


def _capacity(executor):
    """How many tasks ``executor`` runs at once: its ``max_workers`` (a concurrent.futures
    pool), the threads of a Dask client's workers, else the CPUs."""
    count = getattr(executor, "_max_workers", None)
    if count is None and getattr(executor, "_client", None) is not None:  # distributed's ClientExecutor
        try:
            count = sum(executor._client.nthreads().values())
        except Exception:
            count = None
    return max(1, int(count or os.cpu_count() or 1))


def _has_workers(executor):
    """False only for a Dask client's executor whose scheduler knows no worker (True when it
    cannot tell: any other executor, or a scheduler that does not answer)."""
    client = getattr(executor, "_client", None)
    if client is None:
        return True
    try:
        return bool(client.scheduler_info().get("workers"))
    except Exception:
        return True


def _kill_processes(executor):
    """Kill a process pool's processes (it breaks: its unfinished futures fail)."""
    for process in list((getattr(executor, "_processes", None) or {}).values()):
        try:
            process.kill()
        except (OSError, ValueError):  # gone already, or closed
            pass


def run_on_executor(tasks: Sequence[Any], function: Callable[[Any], Any], executor: Executor, timeout: float | None = None,
                    initializer: Callable[..., Any] | None = None,
                    initargs: tuple[Any, ...] = ()) -> Iterator[tuple[Any, Any, tuple[str, str] | None]]:
    """Run ``function(task)`` for every task on ``executor``; yield ``(task, result,
    failure)`` as each task ends, as :func:`run_supervised` does (see the module
    docstring for what survives which fault).

    ``initializer`` / ``initargs``: for the processes that take over from a broken
    process pool when the pool does not tell its own.
    """
    process_pool = isinstance(executor, ProcessPoolExecutor)
    capacity = _capacity(executor) if timeout is not None else max(1, len(tasks))
    pending, leftovers = deque(tasks), []
    running: dict[Future[Any], tuple[Any, float]] = {}  # future -> (task, time handed over)
    stuck: set[Future[Any]] = set()
    broken = False
    watch_workers, workerless_since = getattr(executor, "_client", None) is not None, None
    while pending or running:
        stuck = {future for future in stuck if not future.done()}
        while pending and not broken and len(running) + len(stuck) < capacity:
            task = pending.popleft()
            try:
                future = executor.submit(function, task)
            except (BrokenExecutor, RuntimeError) as err:  # broken, or shut down
                if process_pool:
                    broken = True
                    leftovers.append(task)
                else:
                    yield task, None, ("error", f"the task could not be submitted: {type(err).__name__}: {err}")
                continue
            running[future] = (task, time.monotonic())
        if broken:
            leftovers.extend(pending)
            pending.clear()
        if not running:
            for task in pending:  # every worker is still busy with an abandoned task
                yield task, None, ("error", "not run: every worker of the executor is still busy with a task "
                                            f"that timed out (task_timeout = {timeout:g} s)")
            pending.clear()
            break
        limit = None
        if timeout is not None:
            limit = min(_LONGEST_WAIT,
                        max(0.0, min(submitted for _, submitted in running.values()) + timeout - time.monotonic()))
        if watch_workers:
            limit = POLL if limit is None else min(limit, POLL)
        done, _ = wait(running, timeout=limit, return_when=FIRST_COMPLETED)
        if watch_workers and not done:
            if _has_workers(executor):
                workerless_since = None
            elif workerless_since is None:
                workerless_since = time.monotonic()
            elif time.monotonic() - workerless_since >= NO_WORKERS:
                message = (f"not finished: the Dask cluster has had no workers for {NO_WORKERS:g} s "
                           "(all lost or retired); start workers and run the study again")
                for future, (task, _) in list(running.items()):
                    future.cancel()
                    yield task, None, ("error", message)
                for task in pending:
                    yield task, None, ("error", message)
                running.clear()
                pending.clear()
                break
        for future in done:
            task, _ = running.pop(future)
            try:
                result = future.result()
            except BrokenProcessPool:  # this task may have been healthy, or not even started
                broken = True
                leftovers.append(task)
            except Exception as err:
                yield task, None, ("error", f"the task did not return: {type(err).__name__}: {err}")
            else:
                yield task, result, None
        if timeout is None:
            continue
        now = time.monotonic()
        for future, (task, submitted) in list(running.items()):
            if now - submitted < timeout:
                continue
            del running[future]
            future.cancel()
            if process_pool:
                _kill_processes(executor)
                broken = True
                what = "the process pool's processes were killed (the other unfinished tasks run again)"
            else:
                stuck.add(future)
                what = "the executor cannot stop it: its worker stays busy until it returns"
            yield task, None, (TIMEOUT, f"timed out: no result within task_timeout = {timeout:g} s; {what}")
    if leftovers:
        workers = min(len(leftovers), _capacity(executor))
        initializer = getattr(executor, "_initializer", None) or initializer
        # a pool that has an _initializer has its _initargs
        initargs = (getattr(executor, "_initargs", None)  # type: ignore[assignment]
                    if getattr(executor, "_initializer", None) else initargs)
        for task, result, failure in run_supervised(leftovers, function, workers, timeout, initializer, initargs):
            if failure is not None:
                failure = (failure[0], f"run again after the process pool broke (BrokenProcessPool): {failure[1]}")
            yield task, result, failure
