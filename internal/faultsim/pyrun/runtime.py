# The Python side of Faultline's Python runtime (internal/faultsim/pyrun).
#
# One zygote per grade: it loads the kit's module and the submission once,
# then forks one process per worker of a run when the engine asks (a
# "fork" message on fd 3 carrying the worker's socket). A worker runs one
# call of the entry coroutine on an event loop of ours whose clock is the
# engine's virtual clock: whenever every task is waiting, the loop sends
# the engine what they wait for (harness calls, its next timer) and blocks
# until the engine answers one of them, in the order the engine's seeded
# scheduler chose. Nothing here reads the real clock or the system's
# randomness on the submission's behalf.
import asyncio
import asyncio.base_events
import heapq
import inspect
import json
import os
import random
import socket
import sys
import time
import traceback
import types

_ENC = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=str)
_OUT_LIMIT = 64 << 10

# Exceptions that say the code is wrong rather than that it chose to
# raise: the engine reports them as a panic, as Go reports a nil
# dereference, and any other exception as the call's error.
_BUGS = (AttributeError, NameError, TypeError, IndexError, ZeroDivisionError,
         RecursionError, AssertionError, UnboundLocalError)


class _Writer:
    """sys.stdout and sys.stderr of a worker: kept, sent with the next message."""

    def __init__(self, state):
        self.state = state

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError("write() argument must be str")
        st = self.state
        if st.out_len < _OUT_LIMIT:
            st.out.append(s[: _OUT_LIMIT - st.out_len])
            st.out_len += len(s)
        return len(s)

    def flush(self):
        pass

    def isatty(self):
        return False


class _State:
    def __init__(self):
        self.out = []
        self.out_len = 0
        self.drew = False
        self.reported_drew = False

    def take(self, msg):
        if self.out:
            msg["out"] = "".join(self.out)
            self.out = []
        if self.drew and not self.reported_drew:
            msg["drew"] = True
            self.reported_drew = True
        return msg


_state = _State()


class _TrackedRandom(random.Random):
    """random's module functions for a worker: seeded by the engine, and a
    draw tells the engine the run depends on its seed."""

    def random(self):
        _state.drew = True
        return super().random()

    def getrandbits(self, k):
        _state.drew = True
        return super().getrandbits(k)


def _install_random():
    inst = _TrackedRandom(0)
    for name in ("seed", "random", "uniform", "triangular", "randint", "choice", "randrange", "sample",
                 "shuffle", "choices", "normalvariate", "lognormvariate", "expovariate", "vonmisesvariate",
                 "gammavariate", "gauss", "betavariate", "paretovariate", "weibullvariate", "getstate",
                 "setstate", "getrandbits", "randbytes"):
        if hasattr(inst, name):
            setattr(random, name, getattr(inst, name))
    random._inst = inst

    def urandom(n):
        return inst.randbytes(n)

    os.urandom = urandom
    random._urandom = urandom
    return inst


class _Conn:
    def __init__(self, sock):
        self.sock = sock
        self.r = sock.makefile("rb")

    def send(self, msg):
        self.sock.sendall((_ENC.encode(msg) + "\n").encode())

    def recv(self):
        line = self.r.readline()
        if not line:
            os._exit(0)  # the engine is gone: so is this process
        return json.loads(line)


class _Selector:
    def __init__(self, loop):
        self.loop = loop

    def select(self, timeout):
        return self.loop._wait(timeout)

    def close(self):
        pass


class VirtualLoop(asyncio.base_events.BaseEventLoop):
    """An event loop whose clock is the engine's and whose only I/O is the
    engine's answers. Ready callbacks run in the order they were scheduled
    (BaseEventLoop's), timers by deadline, so the same answers in the same
    order make the same run."""

    def __init__(self, conn, now_ns):
        super().__init__()
        self._selector = _Selector(self)
        self._clock_resolution = 1e-6
        self._conn = conn
        self._now = now_ns / 1e9
        self._seq = 0
        self._futures = {}
        self._outgoing = []
        self._cancels = []
        self._timer = None
        self.main = None

    def time(self):
        return self._now

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

    def call_now(self, fn, args):
        """A harness call that does not wait (a log line): answered before
        the code goes on."""
        self._conn.send(_state.take({"sync": {"fn": fn, "args": args}}))
        while True:
            m = self._conn.recv()
            self._now = m.get("now", 0) / 1e9
            if "sync" in m:
                r = m["sync"]
                if "raise" in r:
                    raise _exception(r["raise"])
                return r.get("ok")

    def _wait(self, timeout):
        if timeout == 0:
            return []
        msg = {}
        if self._outgoing:
            msg["calls"], self._outgoing = self._outgoing, []
        if self._cancels:
            msg["cancel"], self._cancels = self._cancels, []
        timer = None
        while self._scheduled and self._scheduled[0]._cancelled:
            heapq.heappop(self._scheduled)  # BaseEventLoop drops them lazily
        if self._scheduled:
            timer = int(-(-self._scheduled[0]._when * 1e9 // 1))
        if timer is not None:
            msg["timer"] = timer
        self._conn.send(_state.take(msg))
        ev = self._conn.recv()
        self._now = ev.get("now", 0) / 1e9
        if "id" in ev:
            fut = self._futures.pop(ev["id"], None)
            if fut is not None and not fut.done():
                if "raise" in ev:
                    fut.set_exception(_exception(ev["raise"]))
                else:
                    fut.set_result(ev.get("ok"))
        elif ev.get("cancel") and self.main is not None:
            self.main.cancel()
        return []


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


_loop = None


def harness_call(fn, **args):
    """What the kit's module awaits for each of its functions."""
    return _loop.call(fn, args)


def harness_call_now(fn, **args):
    return _loop.call_now(fn, args)


_real_sleep = asyncio.sleep


async def _sleep(delay, result=None):
    # A wait is the engine's (it shows in the trace, on the virtual
    # clock); sleep(0) only yields, as asyncio's does.
    if delay is None or delay <= 0:
        return await _real_sleep(0, result)
    await harness_call("sleep", seconds=float(delay))
    return result


def _virtual_time():
    return _loop.time() if _loop is not None else 0.0


def _describe(e):
    tb = traceback.extract_tb(e.__traceback__)
    line = 0
    for fr in tb:
        if fr.filename == _filename:
            line = fr.lineno
    return {"type": type(e).__name__, "message": str(e), "line": line,
            "bug": isinstance(e, _BUGS) or getattr(e, "_faultline_panic", False)}


_filename = "submission.py"


def _outcome(v):
    if v is None:
        return None
    if isinstance(v, str):
        return str.__str__(v)
    return repr(v)


def _serve_worker(sock, entry):
    global _loop
    conn = _Conn(sock)
    start = conn.recv()
    inst = random._inst
    inst.seed(start.get("seed", 0))
    _state.drew = False
    loop = VirtualLoop(conn, start.get("now", 0))
    _loop = loop
    asyncio.set_event_loop(loop)
    done = {"done": True}
    try:
        loop.main = loop.create_task(entry(*start.get("args", [])))
        try:
            done["result"] = _outcome(loop.run_until_complete(loop.main))
        except asyncio.CancelledError as e:
            done["raise"] = {"type": "CancelledError", "message": str(e) or "the call was cancelled", "bug": False}
        except BaseException as e:  # the call's own exception, reported
            done["raise"] = _describe(e)
    except BaseException as e:
        done["raise"] = _describe(e)
    conn.send(_state.take(done))
    sys.stdout.flush()
    os._exit(0)


def _load(init):
    """Loads the kit's module and the submission; a problem is a
    diagnostic the engine shows the user."""
    global _kit, _filename
    _filename = init["file"]
    kit = types.ModuleType(init["module"])
    kit.__dict__["_call"] = harness_call
    kit.__dict__["_call_now"] = harness_call_now
    exec(compile(init["module_source"], init["module"] + ".py", "exec"), kit.__dict__)
    sys.modules[init["module"]] = kit
    _kit = kit
    asyncio.sleep = _sleep
    time.time = lambda: 1_700_000_000.0 + _virtual_time()
    time.monotonic = _virtual_time
    time.perf_counter = _virtual_time
    _install_random()
    try:
        code = compile(init["source"], _filename, "exec")
    except SyntaxError as e:
        return None, {"line": e.lineno or 0, "column": e.offset or 0, "message": "SyntaxError: " + (e.msg or "")}
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


def _reap(flags):
    while True:
        try:
            pid, _ = os.waitpid(-1, flags)
        except ChildProcessError:
            return
        if pid == 0:
            return


def main():
    init = json.loads(sys.stdin.buffer.read())
    ctl = socket.socket(fileno=3)
    entry, diag = _load(init)
    if diag is not None:
        ctl.send(_ENC.encode({"diag": diag}).encode())
        return
    ctl.send(_ENC.encode({"ready": True}).encode())
    while True:
        data, fds, _, _ = socket.recv_fds(ctl, 4096, 1)
        _reap(os.WNOHANG)
        if not data:
            # The grade is over: the engine has ended every worker, whose
            # CPU time counts as ours once reaped.
            _reap(0)
            return
        if not fds:
            continue
        pid = os.fork()
        if pid == 0:
            ctl.close()
            sock = socket.socket(fileno=fds[0])
            sys.stdout = sys.stderr = _Writer(_state)
            _serve_worker(sock, entry)
            os._exit(0)
        os.close(fds[0])
        ctl.send(_ENC.encode({"pid": pid}).encode())


if __name__ == "__main__":
    main()
