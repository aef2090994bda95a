# The Python side of Faultline's Python runtime (internal/faultsim/pyrun).
#
# One zygote per grade loads the kit's module and compiles the submission
# once (a problem there is a diagnostic), then forks a lane process for
# each lane of runs when the engine asks (a "fork" message on fd 3
# carrying the lane's socket). A lane process serves the workers of one
# run at a time, each as a process of its own would be: the submission's
# module executed afresh for it, its own seeded random source, its own
# output, and its one call of the entry coroutine on an event loop of its
# own whose clock is the engine's virtual clock. Whenever every task of a
# worker's loop waits, the lane sends the engine what they wait for
# (harness calls, the next timer) and steps that loop again only when the
# engine answers one of them, in the order the engine's seeded scheduler
# chose. A worker whose process the engine kills is dropped: none of its
# tasks runs again. Nothing here reads the real clock or the system's
# randomness on the submission's behalf.
import sys

# asyncio loads ssl for its TLS transports, some ms of every grade's
# start: there is no socket here to speak TLS on. Once asyncio is loaded,
# a submission that imports ssl gets it.
sys.modules.setdefault("ssl", None)
import asyncio
import asyncio.base_events
import asyncio.events
import gc
import heapq
import inspect
import json
import os
import random
import socket
import time
import traceback
import types

if sys.modules.get("ssl", True) is None:
    del sys.modules["ssl"]

_ENC = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=str)
# What _ENC.encode and json.loads do for the lane's messages, without the
# layers around the C encoder and scanner each would go through for each
# of them: the same text, the same values.
_scan = json.JSONDecoder().scan_once
_encode_basestring = getattr(json.encoder, "c_encode_basestring", None) or json.encoder.py_encode_basestring


def _dumps(o):
    make = json.encoder.c_make_encoder
    if make is None:
        return _ENC.encode(o)
    return "".join(make({}, str, _encode_basestring, None, ":", ",", False, False, True)(o, 0))
_OUT_LIMIT = 64 << 10

# Exceptions that say the code is wrong rather than that it chose to
# raise: the engine reports them as a panic, as Go reports a nil
# dereference, and any other exception as the call's error.
_BUGS = (AttributeError, NameError, TypeError, IndexError, ZeroDivisionError,
         RecursionError, AssertionError, UnboundLocalError)


class _Writer:
    """sys.stdout and sys.stderr: what the stepping worker prints, kept for
    its next message."""

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError("write() argument must be str")
        wk = _cur
        if wk is not None and wk.out_len < _OUT_LIMIT:
            wk.out.append(s[: _OUT_LIMIT - wk.out_len])
            wk.out_len += len(s)
        return len(s)

    def flush(self):
        pass

    def isatty(self):
        return False


class _TrackedRandom(random.Random):
    """A worker's random source: seeded by the engine, and a draw tells the
    engine the run depends on its seed."""

    def random(self):
        if _cur is not None:
            _cur.drew = True
        return super().random()

    def getrandbits(self, k):
        if _cur is not None:
            _cur.drew = True
        return super().getrandbits(k)


_RANDOM_NAMES = ("seed", "random", "uniform", "triangular", "randint", "choice", "randrange", "sample",
                 "shuffle", "choices", "normalvariate", "lognormvariate", "expovariate", "vonmisesvariate",
                 "gammavariate", "gauss", "betavariate", "paretovariate", "weibullvariate", "getstate",
                 "setstate", "getrandbits", "randbytes")


def _bind_random(inst):
    """random's module functions, and os.urandom, draw from inst. (Workers
    of a lane take turns, so this runs at most steps: the bound methods
    are made once per source.)"""
    bound = inst.__dict__.get("_faultline_bound")
    if bound is None:
        bound = [(name, getattr(inst, name)) for name in _RANDOM_NAMES if hasattr(inst, name)]
        inst.__dict__["_faultline_bound"] = bound
    d = random.__dict__
    for name, f in bound:
        d[name] = f
    random._inst = inst


def _urandom(n):
    return random._inst.randbytes(n)


class _Conn:
    def __init__(self, sock):
        self.sock = sock
        self.r = sock.makefile("rb")

    def send(self, msg):
        if len(msg) == 2 and msg.get("done") and "result" in msg:
            # The usual end, a value and nothing else: r<value>.
            self.sock.sendall(("r%s\n" % _dumps(msg["result"])).encode())
            return
        if len(msg) == 1:
            calls = msg.get("calls")
            if calls is not None and len(calls) == 1 and type(calls[0]["fn"]) is str and calls[0]["fn"].isidentifier():
                # The usual batch, one call and nothing else, in a form the
                # engine reads without a JSON decoder: c<id> TAB fn TAB args.
                c = calls[0]
                self.sock.sendall(("c%d\t%s\t%s\n" % (c["id"], c["fn"], _dumps(c["args"]))).encode())
                return
        self.sock.sendall((_dumps(msg) + "\n").encode())

    def recv(self):
        line = self.r.readline()
        if not line:
            os._exit(0)  # the engine is gone: so is this process
        return _scan(line.decode(), 0)[0]


class _Selector:
    def __init__(self, loop):
        self.loop = loop

    def select(self, timeout):
        # Never waits: a loop with nothing ready and no timer due is
        # quiet, and the lane hands the engine what it waits for.
        loop = self.loop
        if timeout != 0:
            sched = loop._scheduled
            loop._quiet = not (sched and sched[0]._when <= loop._now + loop._clock_resolution)
        return []

    def close(self):
        pass


class VirtualLoop(asyncio.base_events.BaseEventLoop):
    """An event loop whose clock is the engine's and whose only I/O is the
    engine's answers. Ready callbacks run in the order they were scheduled
    (BaseEventLoop's), timers by deadline, so the same answers in the same
    order make the same run."""

    def __init__(self, now_ns):
        super().__init__()
        self._selector = _Selector(self)
        self._clock_resolution = 1e-6
        self._now = now_ns / 1e9
        self._quiet = False
        self._seq = 0
        self._futures = {}
        self._outgoing = []
        self._cancels = []
        self.tasks = []  # every task of the worker, for its end (_bury)
        self.set_task_factory(self._new_task)

    def _new_task(self, loop, coro, context=None):
        t = asyncio.Task(coro, loop=loop, context=context)
        self.tasks.append(t)
        return t

    def time(self):
        # A call sent later (a log line) may have let the engine's clock
        # move on: a reading that matters (the code's own, or the loop's
        # when a timer waits) first has the engine take the calls, and
        # learns the clock. The loop's own reading as it steps, with no
        # timer, decides nothing.
        wk = _cur
        if wk is not None and wk.later and wk.loop is self and (
                self._scheduled or sys._getframe(1).f_code is not _RUN_ONCE):
            _flush(wk)
        return self._now

    def call_exception_handler(self, context):
        # A future or task whose exception nobody read says so when the
        # collector frees it, which happens at no set point of a run (in
        # another worker's step, or the next run's): said then, the same
        # seed would give another report. Go is as silent about an error
        # nobody looked at.
        if str(context.get("message", "")).endswith("exception was never retrieved"):
            return
        super().call_exception_handler(context)

    def _process_events(self, event_list):
        pass

    def _write_to_self(self):
        pass

    def call(self, fn, args):
        """A harness call, answered by the engine: a future of its result."""
        self._seq += 1
        fut = self.create_future()
        self._futures[self._seq] = fut
        self._outgoing.append({"id": self._seq, "fn": fn, "args": args})
        seq = self._seq

        def forget(f):
            if f.cancelled() and self._futures.pop(seq, None) is not None:
                self._cancels.append(seq)

        fut.add_done_callback(forget)
        return fut

    def batch(self):
        """What the loop waits for, now that it is quiet."""
        msg = {}
        if self._outgoing:
            msg["calls"], self._outgoing = self._outgoing, []
        if self._cancels:
            msg["cancel"], self._cancels = self._cancels, []
        while self._scheduled and self._scheduled[0]._cancelled:
            heapq.heappop(self._scheduled)  # BaseEventLoop drops them lazily
        if self._scheduled:
            msg["timer"] = int(-(-self._scheduled[0]._when * 1e9 // 1))
        return msg

    def answer(self, ev):
        """Resolves what the engine answered."""
        fut = self._futures.pop(ev["id"], None)
        if fut is not None and not fut.done():
            if "raise" in ev:
                fut.set_exception(_exception(ev["raise"]))
            else:
                fut.set_result(ev.get("ok"))


_kit = None  # the kit's module


def _exception(r):
    if r.get("bug"):
        # The harness itself panicked (a scripted fault): escaping the
        # call, it is reported as the panic it was.
        e = RuntimeError(r.get("message", ""))
        e._faultline_panic = True
        return e
    make = getattr(_kit, "_exception", None)
    if make is not None:
        return make(r.get("type", ""), r.get("message", ""), r.get("fields") or {})
    return RuntimeError(r.get("message", ""))


def harness_call(fn, **args):
    """What the kit's module awaits for each of its functions."""
    return _cur.loop.call(fn, args)


def harness_call_now(fn, **args):
    """A harness call that does not wait (a log line): answered before the
    code goes on."""
    wk = _cur
    if wk is _GRAVE:
        raise _Dead()
    _conn.send(wk.take({"sync": {"fn": fn, "args": args}}))
    m = _conn.recv()
    wk.loop._now = m.get("now", 0) / 1e9
    r = m.get("sync") or {}
    if "raise" in r:
        raise _exception(r["raise"])
    return r.get("ok")


def harness_call_later(fn, **args):
    """A harness call whose answer the code does not need (a log line):
    it goes with the worker's next message, which the engine takes in
    order (what the code printed before it first), so that it costs no
    exchange of its own. What the engine makes of it is the same: it
    passes the gate where the code made it, between the calls before it
    and those after. The engine's answer is dropped."""
    wk = _cur
    if wk is _GRAVE:
        raise _Dead()
    later, wk.later = wk.later, []
    later.append(wk.take({"fn": fn, "args": args}))
    wk.later = later
    for v in args.values():
        if isinstance(v, str):
            wk.later_size += len(v)
    if len(later) >= _LATER_MAX or wk.later_size > _LATER_BYTES:
        # A loop that logs and never awaits goes no faster than it did,
        # nor does its message grow without bound.
        _flush(wk)


def _flush(wk):
    """Has the engine take the worker's calls sent later now, and learns
    its clock."""
    wk.later_size = 0
    _conn.send(wk.take({"sync": {"fn": "", "args": {}}}))
    m = _conn.recv()
    wk.loop._now = m.get("now", 0) / 1e9


_LATER_MAX = 32
_LATER_BYTES = 256 << 10
_RUN_ONCE = asyncio.base_events.BaseEventLoop._run_once.__code__
_real_sleep = asyncio.sleep


async def _sleep(delay, result=None):
    # A wait is the engine's (it shows in the trace, on the virtual
    # clock); sleep(0) only yields, as asyncio's does.
    if delay is None or delay <= 0:
        return await _real_sleep(0, result)
    await harness_call("sleep", seconds=float(delay))
    return result


def _virtual_time():
    return _cur.loop.time() if _cur is not None else 0.0


def _describe(e):
    # The last line in the submission, walked without reading source
    # (traceback.extract_tb does): a RecursionError has a million frames.
    line = 0
    t = e.__traceback__
    while t is not None:
        if t.tb_frame.f_code.co_filename == _filename:
            line = t.tb_lineno
        t = t.tb_next
    return {"type": type(e).__name__, "message": str(e), "line": line,
            "bug": isinstance(e, _BUGS) or getattr(e, "_faultline_panic", False)}


_filename = "submission.py"


class BlockingSleep(BaseException):
    """time.sleep in a worker. It would hold the whole event loop, every
    task of the call with it, for real seconds in which no virtual time
    passes: what it does to the run cannot be told, and a grade of such
    code took minutes. So it ends the call at its line, as a crash does
    (a BaseException: an except Exception around it does not hide it)."""
    _faultline_panic = True


def _blocking_sleep(seconds):
    if seconds == 0:
        return
    if seconds < 0:
        raise ValueError("sleep length must be non-negative")
    raise BlockingSleep(
        "time.sleep(%g) would block the event loop, and every task of this call with it: "
        "async code waits with await asyncio.sleep(%g), the only sleep on the grader's clock" % (seconds, seconds))


def _outcome(v):
    if v is None:
        return None
    if isinstance(v, str):
        return str.__str__(v)
    return repr(v)


class _Worker:
    """One worker of the lane's run: what a process of its own would hold."""

    def __init__(self, start):
        self.out = []
        self.out_len = 0
        self.later = []  # calls sent with the next message
        self.later_size = 0
        self.drew = False
        self.reported_drew = False
        self.rand = _TrackedRandom(start.get("seed", 0))
        self.loop = VirtualLoop(start.get("now", 0))
        self.task = None

    def take(self, msg):
        if self.later:
            msg["later"], self.later = self.later, []
            self.later_size = 0
        if self.out:
            msg["out"] = "".join(self.out)
            self.out = []
        if self.drew and not self.reported_drew:
            msg["drew"] = True
            self.reported_drew = True
        return msg


class _Dead(BaseException):
    """Raised in a worker whose process is gone, should its code try
    anything (a finally that calls the harness as its coroutine closes)."""


class _DeadLoop:
    def time(self):
        return 0.0

    def call(self, fn, args):
        raise _Dead()


class _Grave:
    """_cur while a worker's coroutines are closed: nothing of it reaches
    the engine, its output is dropped."""
    loop = _DeadLoop()
    out = []
    out_len = _OUT_LIMIT
    later = []
    drew = False


_GRAVE = _Grave()


def _bury(wk):
    """Ends a worker as its process's end would: every coroutine of it is
    closed now, where nothing it tries reaches the engine, rather than
    when the collector finds it, in the middle of another worker's step."""
    global _cur
    prev = _cur
    _cur = _GRAVE
    try:
        for t in wk.loop.tasks:
            if t.done():
                # "Task exception was never retrieved" is said when the
                # collector frees the task: at no set point of any run.
                t._log_traceback = False
            else:
                t._log_destroy_pending = False
                try:
                    t.get_coro().close()
                except BaseException:
                    pass
        wk.loop._ready.clear()
        wk.loop._scheduled.clear()
    finally:
        _cur = prev


_cur = None  # the worker whose loop steps
_conn = None
_code = None  # the submission, compiled


def _start(wk, args):
    """The worker's process starts: the submission's module afresh, then
    its call of the entry coroutine."""
    mod = types.ModuleType("submission")
    mod.__file__ = _filename
    exec(_code, mod.__dict__)
    entry = mod.__dict__.get(_entry)
    wk.task = wk.loop.create_task(entry(*args))
    wk.task._log_destroy_pending = False


def _step(wk):
    """Runs the worker's loop until every task waits, or the call is over:
    the message the engine gets."""
    global _cur
    _cur = wk
    if random._inst is not wk.rand:
        _bind_random(wk.rand)
    loop = wk.loop
    asyncio.events._set_running_loop(loop)
    try:
        if wk.task is None:
            _start(wk, wk.args)
        task, ready = wk.task, loop._ready
        while not task.done():
            loop._quiet = False
            loop._run_once()
            if not ready and (loop._quiet or not loop._scheduled) and not task.done():
                # Quiet: nothing ready and no timer due (with no timer at
                # all, the step that would find that out does nothing).
                return wk.take(loop.batch())
    except BaseException as e:  # the module's own import, for this worker
        return wk.take({"done": True, "raise": _describe(e)})
    finally:
        asyncio.events._set_running_loop(None)
        _cur = None
    done = {"done": True}
    t = wk.task
    if t.cancelled():
        done["raise"] = {"type": "CancelledError", "message": "the call was cancelled", "bug": False}
    elif t.exception() is not None:
        done["raise"] = _describe(t.exception())
    else:
        try:
            done["result"] = _outcome(t.result())
        except BaseException as e:
            done["raise"] = _describe(e)
    return wk.take(done)


def _serve_lane(sock):
    global _conn
    _conn = _Conn(sock)
    workers = {}
    while True:
        m = _conn.recv()
        tag = m.get("w")
        if m.get("reset"):
            for wk in workers.values():
                _bury(wk)
            workers.clear()
            continue
        if m.get("drop"):
            wk = workers.pop(tag, None)
            if wk is not None:
                _bury(wk)
            continue
        if m.get("start"):
            wk = _Worker(m)
            wk.args = m.get("args", [])
            workers[tag] = wk
        else:
            wk = workers.get(tag)
            if wk is None:
                _conn.send({"done": True, "raise": {"type": "RuntimeError", "message": "no such worker", "bug": True}})
                continue
            wk.loop._now = m.get("now", 0) / 1e9
            if "id" in m:
                wk.loop.answer(m)
            elif m.get("cancel"):
                wk.task.cancel()
        msg = _step(wk)
        if msg.get("done"):
            # Tasks the call left behind end with its process.
            _bury(workers.pop(tag))
        _conn.send(msg)


def _prepare(init):
    """Loads the kit's module and compiles the submission (a syntax error
    is a diagnostic the engine shows the user); runs none of it."""
    global _kit, _filename, _code, _entry
    _filename = init["file"]
    _entry = init["entry"]
    kit = types.ModuleType(init["module"])
    kit.__dict__["_call"] = harness_call
    kit.__dict__["_call_now"] = harness_call_now
    kit.__dict__["_call_later"] = harness_call_later
    exec(compile(init["module_source"], init["module"] + ".py", "exec"), kit.__dict__)
    sys.modules[init["module"]] = kit
    _kit = kit
    asyncio.sleep = _sleep
    time.time = lambda: 1_700_000_000.0 + _virtual_time()
    time.monotonic = _virtual_time
    time.perf_counter = _virtual_time
    time.sleep = _blocking_sleep
    os.urandom = _urandom
    random._urandom = _urandom
    _bind_random(_TrackedRandom(0))
    try:
        _code = compile(init["source"], _filename, "exec")
    except SyntaxError as e:
        return {"line": e.lineno or 0, "column": e.offset or 0, "message": "SyntaxError: " + (e.msg or "")}
    return None


def _load_submission(init):
    """Runs the submission's module (its top level) and checks its entry
    coroutine: a problem is a diagnostic."""
    code = _code
    mod = types.ModuleType("submission")
    mod.__file__ = _filename
    sys.modules["submission"] = mod
    try:
        exec(code, mod.__dict__)
    except BaseException as e:
        d = _describe(e)
        return None, {"line": d["line"], "message": "loading the code raised %s: %s" % (d["type"], d["message"])}
    entry = mod.__dict__.get(init["entry"])
    want = init.get("want", "")
    if entry is None:
        return None, {"message": "the code defines no %s: want %s" % (init["entry"], want)}
    if not inspect.iscoroutinefunction(entry):
        return None, {"line": getattr(getattr(entry, "__code__", None), "co_firstlineno", 0),
                      "message": "%s is not an async def: want %s" % (init["entry"], want)}
    try:
        inspect.signature(entry).bind(*(["x"] * init.get("params", 1)))
    except TypeError:
        return None, {"line": entry.__code__.co_firstlineno,
                      "message": "%s does not take %d argument(s): want %s" % (init["entry"], init.get("params", 1), want)}
    return entry, None


_ended = {}  # lane pid -> (wait status, CPU seconds), reaped and not yet asked for
_spent = [0.0]  # CPU seconds of the processes this zygote forked and reaped


def _budget():
    """The CPU time a process forked now may spend: the grade's limit (the
    RLIMIT_CPU this zygote inherited, the grading child's) less what the
    zygote and the processes it reaped have spent. A limit is per process,
    so without this every new lane (one per crashed worker) would start
    with the whole limit again. None when there is no limit."""
    import resource
    soft, _ = resource.getrlimit(resource.RLIMIT_CPU)
    if soft == resource.RLIM_INFINITY:
        return None
    own = resource.getrusage(resource.RUSAGE_SELF)
    return soft - _spent[0] - own.ru_utime - own.ru_stime


def _hold_to(budget):
    """In a process just forked: its CPU time limit is what is left of the
    grade's (the hard limit a second past it, as the grading child's is)."""
    if budget is None:
        return
    import math
    import resource
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = max(1, math.ceil(budget))
    resource.setrlimit(resource.RLIMIT_CPU, (min(soft, hard), min(soft + 1, hard)))


def _reap(flags):
    while True:
        try:
            pid, status, usage = os.wait4(-1, flags)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _ended[pid] = (status, usage.ru_utime + usage.ru_stime)
        _spent[0] += usage.ru_utime + usage.ru_stime
        if len(_ended) > 4096:
            _ended.pop(next(iter(_ended)))


_SIGNAL_WHY = {
    "SIGSEGV": "the interpreter crashed: a stack overflow, as recursion deeper than the C stack allows does once sys.setrecursionlimit is raised",
    "SIGBUS": "the interpreter crashed",
    "SIGABRT": "the interpreter aborted on a fatal error",
    "SIGXCPU": "the CPU time limit",
    "SIGKILL": "stopped at a limit: the CPU time limit, or the grader ended it",
}


def _ending(pid):
    """How lane pid ended (the engine asks once it lost it): in words, and
    "cpu-time" as its limit when the kernel ended it at RLIMIT_CPU (SIGXCPU
    at the soft limit, or SIGKILL at the hard one for code that ignored
    SIGXCPU: its CPU time says which)."""
    got = _ended.pop(pid, None)
    if got is None:
        try:
            _, status, usage = os.wait4(pid, 0)
        except ChildProcessError:
            return {"ending": ""}
        got = (status, usage.ru_utime + usage.ru_stime)
        _spent[0] += got[1]
    status, cpu = got
    out = {"ending": _status_words(status)}
    if os.WIFSIGNALED(status):
        import resource
        import signal
        soft, _ = resource.getrlimit(resource.RLIMIT_CPU)
        sig = os.WTERMSIG(status)
        if sig == signal.SIGXCPU or sig == signal.SIGKILL and soft != resource.RLIM_INFINITY and cpu >= soft - 0.2:
            out["limit"] = "cpu-time"
    return out


def _status_words(status):
    if os.WIFSIGNALED(status):
        import signal
        try:
            name = signal.Signals(os.WTERMSIG(status)).name
        except ValueError:
            name = "signal %d" % os.WTERMSIG(status)
        return "killed by %s (%s)" % (name, _SIGNAL_WHY.get(name, "a signal"))
    code = os.WEXITSTATUS(status)
    return "it exited with status %d (os._exit, or the interpreter gave up)" % code


def _confine(prog):
    """Loads a seccomp program (hex, from the engine) on this process, on
    top of the filters it has: filters stack, the strictest answer holds.
    Nothing submitted has run in this process yet."""
    if not prog:
        return
    import ctypes
    data = bytes.fromhex(prog)
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(data, len(data))

    class _Fprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = _Fprog(len(data) // 8, ctypes.cast(buf, ctypes.c_void_p))
    PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "seccomp: " + os.strerror(e))


def _check(init):
    """Loads the submission in a process of its own, confined as a lane
    is (its module's top level is submitted code): the zygote, which
    must fork, runs none. What the zygote tells the engine: ready, or a
    diagnostic."""
    r, w = os.pipe()
    budget = _budget()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            _hold_to(budget)
            _confine(init.get("lane_filter"))
            _, diag = _load_submission(init)
            msg = {"diag": diag} if diag is not None else {"ready": True}
        except BaseException as e:
            d = _describe(e)
            msg = {"diag": {"line": d["line"], "message": "loading the code raised %s: %s" % (d["type"], d["message"])}}
        os.write(w, _ENC.encode(msg).encode())
        os._exit(0)
    os.close(w)
    chunks = []
    while True:
        b = os.read(r, 65536)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    _, status, usage = os.wait4(pid, 0)
    _spent[0] += usage.ru_utime + usage.ru_stime
    data = b"".join(chunks)
    if data:
        return data
    return _ENC.encode({"diag": {"message": "loading the code ended its process: " + _status_words(status)}}).encode()


def main():
    init = json.loads(sys.stdin.buffer.read())
    ctl = socket.socket(fileno=3)
    _confine(init.get("zygote_filter"))
    diag = _prepare(init)
    if diag is not None:
        ctl.send(_ENC.encode({"diag": diag}).encode())
        return
    ctl.send(_check(init))
    # What the zygote holds lives as long as it: the lanes' collections
    # need not walk it (nor, touching it, copy its pages).
    gc.freeze()
    while True:
        data, fds, _, _ = socket.recv_fds(ctl, 4096, 1)
        _reap(os.WNOHANG)
        if not data:
            # The grade is over: the engine has ended every worker, whose
            # CPU time counts as ours once reaped.
            _reap(0)
            return
        if not fds:
            if data.startswith(b"wait "):
                ctl.send(_ENC.encode(_ending(int(data[5:]))).encode())
            continue
        budget = _budget()
        pid = os.fork()
        if pid == 0:
            ctl.close()
            _hold_to(budget)
            _confine(init.get("lane_filter"))
            sys.stdout = sys.stderr = _Writer()
            _serve_lane(socket.socket(fileno=fds[0]))
            os._exit(0)
        os.close(fds[0])
        ctl.send(_ENC.encode({"pid": pid}).encode())


if __name__ == "__main__":
    main()
