#!/usr/bin/env python3
"""Where each created order's CPU goes, per process and per step, from a `perf record -g` of the
suite under order creation (`make profile-orders` makes one).

Usage: cpu-budget.py PERF_DATA PROCESSES CPU_LINE [--frames]
  PROCESSES  the suite's processes as name:pid pairs (ORDERLY_PROCESSES)
  CPU_LINE   loadgen's "CPU per created order: … ms (gateway 0.19, orders 0.30, …)" line
  --frames   under each step, the innermost frames its samples are most often in

Each sample is put in one step: first by what it runs within (the outbox relay, housekeeping,
the WAL checkpointer), otherwise by the innermost frame that names a step (a system call, the
JSON coders, SQLite, Wire, HTTP, …); allocation and reference counting count for their caller.
A process's CPU per order (measured by loadgen from /proc) is shared out by its samples.
"""
import collections
import re
import subprocess
import sys

# What a sample runs within, wherever it is on the stack.
CONTEXT = [
    ("outbox relay (read, publish to Redis, mark sent)", r"OutboxRelay"),
    ("housekeeping", r"Housekeeping"),
    ("WAL checkpoint", r"wal_checkpoint|sqlite3WalCheckpoint|walCheckpoint"),
]

# The innermost frame that names a step decides it.
LEAF = [
    ("kernel: fsync at commit", r"__x64_sys_fdatasync|__x64_sys_fsync"),
    ("kernel: WAL and database writes", r"__x64_sys_pwrite64"),
    ("kernel: database reads", r"__x64_sys_pread64"),
    ("kernel: socket writes (and loopback delivery)", r"\bksys_write\b|\bdo_writev\b|__sys_sendmsg|__sys_sendto"),
    ("kernel: socket reads", r"\bksys_read\b|\bdo_readv\b|__sys_recvmsg|__sys_recvfrom"),
    ("kernel: waiting and waking threads", r"__x64_sys_(epoll_wait|epoll_pwait|futex|nanosleep|clock_nanosleep)|"
     r"^schedule |finish_task_switch|eventfd_write"),
    ("kernel: page faults", r"asm_exc_page_fault"),
    ("kernel: interrupts", r"asm_common_interrupt|asm_sysvec|__irq_exit_rcu"),
    ("JSON encoding (documents, events, answers)", r"JSONEncoder|JSONWriter|JSONWritable"),
    ("JSON decoding (bodies, events, documents)", r"JSONDecoder|JSONScanner[A-Z0-9]*scan|JSONMap"),
    ("SQLite and SQL (statements, savepoints, commit)", r"sqlite3|SQLiteGroupCommit|EmbeddedSQLite|SQLKit|"
     r"SQLiteValue|7Storage11Transaction"),
    ("access tokens and sessions", r"JWTKit|TokenIssuer|VerifiedTokens|BearerAuthentication|8Sessions"),
    ("HTTP (parse, route, write)", r"NIOHTTP1|HummingbirdCore|11Hummingbird|llhttp|HTTPTypes"),
    ("Redis (streams, pub/sub, hiredis)", r"5Redis|hiredis"),
    ("Wire (frames, envelopes, calls)", r"4Wire|4JSON"),
    ("logging and metrics", r"7Logging|Metrics"),
    ("orders: validate, price, decide", r"6Orders|6Domain"),
    ("notifications: audience, messages", r"13Notifications"),
    ("gateway: routes", r"7Gateway"),
    ("Swift task scheduling", r"swift_task|swift_job|AsyncTask|swift_continuation|Concurrency"),
    ("NIO event loop", r"NIOPosix|NIOCore"),
]

# Processes that are not ours keep their own name as their only step.
FOREIGN = {"redis"}


def samples(perf_data):
    """(pid, frames leaf first) for each sample; a frame is `symbol (library)`."""
    script = subprocess.run(
        ["perf", "script", "-i", perf_data, "-F", "pid,ip,sym,dso"], capture_output=True, text=True, check=True
    ).stdout
    pid, frames = None, []
    for line in script.splitlines():
        if not line.strip():
            if pid is not None:
                yield pid, frames
            pid, frames = None, []
        elif pid is None:
            pid = int(line.split()[0])
        else:
            parts = line.split(None, 1)
            frames.append(parts[1] if len(parts) > 1 else "")
    if pid is not None:
        yield pid, frames


def step(frames):
    for name, pattern in CONTEXT:
        if any(re.search(pattern, frame) for frame in frames):
            return name
    for frame in frames:
        for name, pattern in LEAF:
            if re.search(pattern, frame):
                return name
    return "other (allocation, runtime, libraries)"


def main():
    perf_data, processes, cpu_line = sys.argv[1:4]
    names = {int(pid): name for name, pid in (pair.split(":") for pair in processes.split())}
    cpu = {name: float(ms) for name, ms in re.findall(r"(\w+) ([0-9.]+)", cpu_line.split("(", 1)[1])}
    show_frames = "--frames" in sys.argv[4:]
    counts = collections.defaultdict(collections.Counter)
    leaves = collections.defaultdict(collections.Counter)
    for pid, frames in samples(perf_data):
        name = names.get(pid)
        if name is None:
            continue
        what = name if name in FOREIGN else step(frames)
        counts[name][what] += 1
        if show_frames:
            leaves[(name, what)][" < ".join(frame.split(" (")[0][:60] for frame in frames[:3])] += 1
    total = sum(cpu.get(name, 0) for name in counts)
    print(f"CPU per created order: {total:.3f} ms")
    for name in sorted(counts, key=lambda n: -cpu.get(n, 0)):
        samples_of = sum(counts[name].values())
        print(f"\n{name}: {cpu.get(name, 0):.3f} ms per order ({samples_of} samples)")
        for what, n in counts[name].most_common():
            share = n / samples_of
            print(f"  {cpu.get(name, 0) * share * 1000:6.1f} µs  {share * 100:5.1f} %  {what}")
            for frames, k in leaves[(name, what)].most_common(5):
                print(f"                        {k * 100 / samples_of:4.1f} %  {frames}")


if __name__ == "__main__":
    main()
