"""Run PDF extraction in worker processes, each job under a time limit.

Why processes: PDFium is not thread-safe (one call at a time per process), a hostile PDF can
crash it, and a stuck thread can't be stopped, while a process can be killed when its job
overruns. Why plain subprocesses and not `multiprocessing`: its spawn and forkserver children
re-import the parent's `__main__`, which for the `vault-agent` command is the whole CLI
(seconds, and the embedding runtime in memory); `python -m vault_agent.index.sync.pdf_workers`
imports only the extractor.

Protocol: one JSON object per line. The worker says `{"ready": true}` once started; the pool
sends `{"id", "path", "max_pages", "max_chars"}` and gets `{"id", "hash", "extract"}` (or
`{"id", "error"}`).
The pool is driven by the indexer's own loop (`submit`, then `collect`), so markdown notes
keep flowing while big PDFs are read; with `workers=0` jobs run inline, without a time limit.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import vault_agent
from vault_agent.vault.pdf_extract import PdfExtract

#: How long a worker gets to exit after its input is closed, before it is killed.
EXIT_GRACE_S = 2.0


@dataclass(frozen=True)
class PdfJob:
    """Extract the PDF at `path`; `key` (the vault path) comes back with the result."""

    key: str
    path: Path
    max_pages: int
    max_chars: int


@dataclass
class PdfResult:
    """A finished job. `cacheable` is False when the outcome says nothing about the file's
    content (it could not be read, the worker crashed or could not start)."""

    key: str
    extract: PdfExtract
    content_hash: str | None = None
    cacheable: bool = True
    seconds: float = 0.0
    crashed: bool = False
    """The worker died reading it: the bytes, or the machine (memory) may be why."""


@dataclass
class _Worker:
    process: subprocess.Popen[bytes]
    ready: bool = False
    job: PdfJob | None = None
    job_id: int = 0
    started: float = 0.0
    reader: threading.Thread | None = field(default=None, repr=False)


class PdfWorkerPool:
    """Up to `workers` extraction processes (started when first needed), `timeout_s` per job,
    each limited to `max_memory_mb` of address space (None: no limit; see `limit_memory`).

    Not thread-safe: one indexer drives it. Always `close()` it (or use `with`): workers that
    outlive their pool would hold memory until they see their input close.
    """

    def __init__(self, workers: int, timeout_s: float, max_memory_mb: int | None = None) -> None:
        self.workers = workers
        self.timeout_s = timeout_s
        self.max_memory_mb = max_memory_mb
        self.started_jobs = 0
        self._queued: deque[PdfJob] = deque()
        self._pool: list[_Worker] = []
        self._events: queue.Queue[tuple[_Worker, dict[str, Any] | None]] = queue.Queue()
        self._done: list[PdfResult] = []
        self._next_id = 0

    def __enter__(self) -> PdfWorkerPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def submit(self, job: PdfJob) -> None:
        """Queue a job; it starts as soon as a worker is free."""
        self.started_jobs += 1
        if self.workers <= 0:
            self._done.append(_run_inline(job))
            return
        self._queued.append(job)
        self._dispatch()

    def pending(self) -> int:
        """Jobs queued or running (finished ones waiting in `collect` not included)."""
        return len(self._queued) + sum(1 for worker in self._pool if worker.job is not None)

    def collect(self, wait: bool = False) -> list[PdfResult]:
        """Finished jobs (timeouts included). With `wait`, block until at least one job
        finishes, unless none is pending."""
        while True:
            self._drain(block=wait and not self._done and self.pending() > 0)
            self._stop_overdue()
            self._dispatch()
            if self._done or not wait or self.pending() == 0:
                done, self._done = self._done, []
                return done

    def close(self) -> None:
        """Stop every worker: idle ones exit when their input closes, busy ones are killed."""
        self._queued.clear()
        for worker in self._pool:
            if worker.job is not None:
                _kill(worker.process)
            with contextlib.suppress(OSError):
                _stdin(worker).close()
        deadline = time.monotonic() + EXIT_GRACE_S
        for worker in self._pool:
            try:
                worker.process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _kill(worker.process)
            if worker.reader is not None:
                worker.reader.join(timeout=EXIT_GRACE_S)
        self._pool.clear()

    # ----------------------------------------------------------------- internals

    def _dispatch(self) -> None:
        while self._queued:
            worker = next((w for w in self._pool if w.ready and w.job is None), None)
            if worker is None:
                if len(self._pool) < self.workers:
                    try:
                        self._start_worker()  # it takes jobs once it says it is ready
                    except OSError as error:  # no interpreter to run: no PDF can be read
                        while self._queued:
                            job = self._queued.popleft()
                            reason = f"the PDF extractor could not start ({error})"
                            self._done.append(_unreadable(job, reason, 0.0))
                return
            job = self._queued.popleft()
            self._next_id += 1
            message = {
                "id": self._next_id,
                "path": str(job.path),
                "max_pages": job.max_pages,
                "max_chars": job.max_chars,
            }
            try:
                _stdin(worker).write(json.dumps(message).encode() + b"\n")
                _stdin(worker).flush()
            except OSError:
                self._retire(worker)
                self._queued.appendleft(job)
                continue
            worker.job, worker.job_id, worker.started = job, self._next_id, time.monotonic()

    def _start_worker(self) -> None:
        env = dict(os.environ)
        # The child must import this very package, wherever it is installed or checked out.
        package_root = str(Path(vault_agent.__file__).resolve().parents[1])
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
        limit = [] if self.max_memory_mb is None else [str(self.max_memory_mb)]
        process = subprocess.Popen(
            [sys.executable, "-m", "vault_agent.index.sync.pdf_workers", *limit],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        worker = _Worker(process=process)
        worker.reader = threading.Thread(
            target=self._read, args=(worker,), name="pdf-worker-reader", daemon=True
        )
        worker.reader.start()
        self._pool.append(worker)

    def _read(self, worker: _Worker) -> None:
        """Reader thread: every line the worker prints becomes an event; EOF becomes None."""
        stdout = worker.process.stdout
        assert stdout is not None
        for line in stdout:
            try:
                self._events.put((worker, json.loads(line)))
            except ValueError:
                continue  # not ours (the worker keeps stdout for the protocol, but be safe)
        self._events.put((worker, None))

    def _drain(self, block: bool) -> None:
        timeout = self._until_next_deadline() if block else 0.0
        while True:
            try:
                if block:
                    worker, message = self._events.get(timeout=timeout)
                    block = False  # one event unblocks; take the rest without waiting
                else:
                    worker, message = self._events.get_nowait()
            except queue.Empty:
                return
            self._handle(worker, message)

    def _handle(self, worker: _Worker, message: dict[str, Any] | None) -> None:
        if worker not in self._pool:
            return  # a worker already killed for a timeout, saying its last words
        if message is None:
            self._on_exit(worker)
        elif message.get("ready"):
            worker.ready = True
        elif worker.job is not None and message.get("id") == worker.job_id:
            job, seconds = worker.job, time.monotonic() - worker.started
            worker.job = None
            if "error" in message:
                self._done.append(
                    _unreadable(job, str(message["error"]), seconds)  # not about the content
                )
            else:
                extract = PdfExtract.model_validate(message["extract"])
                self._done.append(PdfResult(job.key, extract, message["hash"], True, seconds))

    def _on_exit(self, worker: _Worker) -> None:
        code = worker.process.wait()
        job = worker.job
        self._retire(worker)
        crashed = job is not None
        if job is not None:
            reason = f"the PDF extractor crashed on it (exit code {code})"
            if self.max_memory_mb is not None:
                reason += (
                    f": a damaged PDF, or one needing more than {self.max_memory_mb} MB "
                    "(index.pdf_max_memory_mb)"
                )
        elif not worker.ready and self._queued:
            # The worker died before it could take a job: no worker will do better.
            job = self._queued.popleft()
            reason = f"the PDF extractor could not start (exit code {code})"
        else:
            return
        result = _unreadable(job, reason, 0.0)
        result.crashed = crashed
        self._done.append(result)

    def _stop_overdue(self) -> None:
        now = time.monotonic()
        for worker in list(self._pool):
            if worker.job is not None and now - worker.started > self.timeout_s:
                job = worker.job
                _kill(worker.process)
                self._retire(worker)
                extract = PdfExtract(
                    problem=f"text extraction took longer than {self.timeout_s:g} s "
                    "(index.pdf_timeout_s)",
                    timeout_s=self.timeout_s,
                )
                self._done.append(PdfResult(job.key, extract, None, True, now - worker.started))

    def _retire(self, worker: _Worker) -> None:
        with contextlib.suppress(ValueError):
            self._pool.remove(worker)
        with contextlib.suppress(OSError):
            _stdin(worker).close()

    def _until_next_deadline(self) -> float:
        starts = [w.started for w in self._pool if w.job is not None]
        if not starts:
            return 1.0  # only starting workers: look again soon (their "ready" wakes us)
        return max(0.0, min(starts) + self.timeout_s - time.monotonic()) + 0.01


def _stdin(worker: _Worker) -> IO[bytes]:
    stdin = worker.process.stdin
    assert stdin is not None
    return stdin


def _kill(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        process.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=EXIT_GRACE_S)


def _unreadable(job: PdfJob, reason: str, seconds: float) -> PdfResult:
    return PdfResult(job.key, PdfExtract(problem=reason), None, False, seconds)


def _run_inline(job: PdfJob) -> PdfResult:
    from vault_agent.vault.pdf import read_pdf  # PDFium loads only where PDFs are read

    started = time.monotonic()
    try:
        content_hash, extract = read_pdf(job.path, job.max_pages, job.max_chars)
    except OSError as error:
        return _unreadable(job, f"could not read: {error}", time.monotonic() - started)
    return PdfResult(job.key, extract, content_hash, True, time.monotonic() - started)


def limit_memory(max_mb: int) -> None:
    """Cap this process's address space at `max_mb` MB, before PDFium is loaded.

    A few hundred KB of PDF can draw megabytes of text on one page, and PDFium holds about
    170 bytes per character while it loads the page (350 KB: 1.7 GB, a few MB of file: more
    than the machine has, and the kernel's OOM killer picks a process, maybe another one).
    Past the cap PDFium's allocation fails and it aborts: the worker dies, and the pool
    reports that PDF as crashing it. Where the system has no such limit (Windows has no
    `resource`; macOS may not enforce RLIMIT_AS: tested on Linux only), nothing changes.
    """
    try:
        import resource
    except ImportError:  # Windows
        return
    limit = max_mb * 1024 * 1024
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def worker_main() -> None:
    """The worker process: read jobs from stdin, write results to stdout, until EOF. Its
    argument, if any, is the memory it may take, in MB (`limit_memory`)."""
    if len(sys.argv) > 1:
        limit_memory(int(sys.argv[1]))
    # PDFium is imported here, in the worker, and never by the indexer's process that runs
    # the pool (0.1 s of every CLI start).
    from vault_agent.vault.pdf import read_pdf

    # The protocol owns the real stdout; anything else printing to fd 1 (a C library's
    # diagnostics) goes to stderr instead of corrupting it.
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())

    def send(message: dict[str, Any]) -> None:
        protocol.write(json.dumps(message).encode() + b"\n")
        protocol.flush()

    send({"ready": True})
    for line in sys.stdin.buffer:
        job = json.loads(line)
        try:
            content_hash, extract = read_pdf(
                Path(job["path"]), int(job["max_pages"]), int(job["max_chars"])
            )
        except OSError as error:
            send({"id": job["id"], "error": f"could not read: {error}"})
        except Exception as error:  # a bug must cost one file, not the worker
            send({"id": job["id"], "error": f"extraction failed: {error!r}"})
        else:
            send({"id": job["id"], "hash": content_hash, "extract": extract.model_dump()})


if __name__ == "__main__":
    worker_main()
