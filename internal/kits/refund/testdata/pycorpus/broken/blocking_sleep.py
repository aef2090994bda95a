# From: correct/enum_state_machine.py
# Drops: the waits between attempts: time.sleep blocks the event loop instead of await asyncio.sleep. The grader refuses time.sleep at its line (it would hold every task of the call for real seconds in which no virtual time passes), so the call ends as a crash.
# invariant: outcome-matches-state
import asyncio
import enum
import time
import random

import refundkit
from refundkit import Outcome, Status


class Step(enum.Enum):
    LOOK_UP = "look_up"
    SEND = "send"
    WAIT = "wait"
    RECORD = "record"
    FINISHED = "finished"


class Ctx:
    def __init__(self, rec):
        self.rec = rec
        self.tries = 0
        self.doubt = rec.status != Status.PENDING
        self.wait = 0.0
        self.final = None  # (Status, reason) once decided
        self.written = False
        self.outcome = None


MAX_TRIES = 5
LEASE = 480


def backoff(tries):
    top = min(12.0, 2.0 ** (tries - 1))
    return random.uniform(top / 2, top)


def decide(c, status, reason=""):
    c.final = (status, reason)
    return Step.RECORD


async def look_up(c):
    try:
        refunds = await refundkit.list_refunds(c.rec.charge_id)
    except refundkit.RefundKitError as e:
        return decide(c, Status.NEEDS_CHECK, f"look-up failed: {e}")
    for r in refunds:
        if r.reference == c.rec.request_id and r.status not in ("failed", "canceled"):
            if r.amount == c.rec.amount:
                return decide(c, Status.DONE)
            return decide(c, Status.NEEDS_CHECK, f"found {r.id} for {r.amount}")
    if c.tries == 0:
        return Step.SEND  # nothing yet: send
    return decide(c, Status.NEEDS_CHECK, "no refund found after an unclear answer")


async def send(c):
    c.tries += 1
    rec = c.rec
    try:
        await refundkit.create_refund(rec.charge_id, rec.amount, idempotency_key="RFND-" + rec.request_id, reference=rec.request_id)
        return decide(c, Status.DONE)
    except refundkit.AlreadyRefunded:
        return decide(c, Status.DONE)
    except refundkit.ConnectionFailed:
        c.wait = backoff(c.tries)
    except (refundkit.ProviderTimeout, refundkit.IdempotencyKeyInUse):
        c.doubt = True
        c.wait = backoff(c.tries)
    except refundkit.RateLimited as e:
        if e.retry_after > 40:
            return decide(c, Status.NEEDS_CHECK if c.doubt else Status.FAILED, "rate limited for long")
        c.wait = max(backoff(c.tries), e.retry_after)
    except refundkit.ServerError as e:
        c.doubt = True
        if e.replayed:
            return Step.LOOK_UP
        c.wait = backoff(c.tries)
    except (refundkit.InvalidRequest, refundkit.ResourceMissing) as e:
        if c.doubt:
            return Step.LOOK_UP
        return decide(c, Status.FAILED, str(e))
    except refundkit.RefundKitError as e:
        return decide(c, Status.NEEDS_CHECK, f"unexpected: {e!r}")
    if c.tries >= MAX_TRIES:
        return decide(c, Status.NEEDS_CHECK if c.doubt else Status.FAILED, f"{c.tries} tries used")
    return Step.WAIT


async def wait(c):
    time.sleep(c.wait)
    return Step.SEND


async def record(c):
    status, reason = c.final
    rid = c.rec.request_id
    try:
        if status == Status.DONE:
            await refundkit.mark_done(rid)
        elif status == Status.FAILED:
            await refundkit.mark_failed(rid, reason)
        else:
            await refundkit.mark_needs_check(rid, reason)
        c.outcome = {Status.DONE: Outcome.DONE, Status.FAILED: Outcome.FAILED}.get(status, Outcome.UNKNOWN)
    except refundkit.RefundKitError:
        c.written = True
        if status == Status.NEEDS_CHECK:
            raise
        await refundkit.mark_needs_check(rid, f"recording {status} failed")
        c.outcome = Outcome.UNKNOWN
    c.written = True
    return Step.FINISHED


HANDLERS = {Step.LOOK_UP: look_up, Step.SEND: send, Step.WAIT: wait, Step.RECORD: record}


async def refund_money(request_id: str) -> Outcome:
    rec = await refundkit.get_record(request_id)
    if rec is None:
        raise LookupError(f"no such refund request: {request_id}")
    if rec.status == Status.DONE:
        return Outcome.DONE
    if not await refundkit.claim(request_id, LEASE):
        st = (await refundkit.get_record(request_id)).status
        if st == Status.DONE:
            return Outcome.DONE
        if st == Status.FAILED:
            return Outcome.FAILED
        if st == Status.NEEDS_CHECK:
            return Outcome.UNKNOWN
        return Outcome.IN_PROGRESS
    c = Ctx(rec)
    step = Step.LOOK_UP if c.doubt else Step.SEND
    try:
        while step is not Step.FINISHED:
            try:
                step = await HANDLERS[step](c)
            except asyncio.CancelledError:
                if c.written or step is Step.RECORD:
                    raise
                step = decide(c, Status.NEEDS_CHECK, "caller cancelled")
    except BaseException as e:
        if not c.written:
            c.written = True
            await refundkit.mark_needs_check(request_id, f"stopped by {type(e).__name__}")
        raise
    return c.outcome
