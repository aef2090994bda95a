# Style: each request runs as a task created with asyncio.create_task and is waited for with asyncio.wait and a 15-second window; a late task is cancelled and collected, never abandoned; attempts counted down; exponential backoff doubling from 0.3 s with equal jitter; a five-minute lease; a NamedTuple for the end.
import asyncio
import random
from typing import NamedTuple

import refundkit
from refundkit import Outcome, Status

LEASE = 300
WINDOW = 15.0
ATTEMPTS = 4


class End(NamedTuple):
    status: Status
    reason: str = ""


async def one_request(rec, key):
    """Sends one request; returns None on success, else the exception,
    and TimeoutError when the window closed first."""
    task = asyncio.create_task(refundkit.create_refund(rec.charge_id, rec.amount, idempotency_key=key, reference=rec.request_id))
    done, _ = await asyncio.wait({task}, timeout=WINDOW)
    if not done:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return TimeoutError("no answer within the window")
    return task.exception()


async def find(rec):
    for r in await refundkit.list_refunds(rec.charge_id):
        if r.reference == rec.request_id and r.status not in ("failed", "canceled"):
            return r
    return None


async def ask_provider(rec, why) -> End:
    try:
        r = await find(rec)
    except refundkit.RefundKitError as e:
        return End(Status.NEEDS_CHECK, f"{why} / look-up failed: {e}")
    if r is not None and r.amount == rec.amount:
        return End(Status.DONE)
    return End(Status.NEEDS_CHECK, why)


async def decide(rec) -> End:
    unsure = rec.status != Status.PENDING
    if unsure:
        try:
            r = await find(rec)
        except refundkit.RefundKitError as e:
            return End(Status.NEEDS_CHECK, f"earlier attempt unverified: {e}")
        if r is not None:
            return End(Status.DONE) if r.amount == rec.amount else End(Status.NEEDS_CHECK, "amount differs")
    key = f"{rec.request_id}:refund"
    left = ATTEMPTS
    delay = 0.3
    while left > 0:
        left -= 1
        err = await one_request(rec, key)
        if err is None or isinstance(err, refundkit.AlreadyRefunded):
            return End(Status.DONE)
        refundkit.log("request failed (%d left): %s", left, err)
        hold = 0.0
        if isinstance(err, (TimeoutError, refundkit.ProviderTimeout, refundkit.IdempotencyKeyInUse)):
            unsure = True
        elif isinstance(err, refundkit.ServerError):
            unsure = True
            if err.replayed:
                return await ask_provider(rec, "server error replayed under our key")
        elif isinstance(err, refundkit.RateLimited):
            if err.retry_after > 30:
                break
            hold = err.retry_after
        elif isinstance(err, (refundkit.InvalidRequest, refundkit.ResourceMissing)):
            if unsure:
                return await ask_provider(rec, f"refused after an unclear attempt: {err}")
            return End(Status.FAILED, str(err))
        elif isinstance(err, refundkit.IdempotencyKeyReused):
            return End(Status.NEEDS_CHECK, str(err))
        elif isinstance(err, refundkit.APIError) and err.status == 401 and not unsure:
            return End(Status.FAILED, "provider refused our credentials")
        elif not isinstance(err, refundkit.ConnectionFailed):
            return End(Status.NEEDS_CHECK, repr(err))
        if left:
            await asyncio.sleep(max(hold, delay / 2 + random.uniform(0, delay / 2)))
            delay = min(delay * 2, 10.0)
    return End(Status.NEEDS_CHECK, "unsure after every attempt") if unsure else End(Status.FAILED, "no attempt got through")


async def store(rid, end: End) -> Outcome:
    match end.status:
        case Status.DONE:
            await refundkit.mark_done(rid)
            return Outcome.DONE
        case Status.FAILED:
            await refundkit.mark_failed(rid, end.reason)
            return Outcome.FAILED
        case _:
            await refundkit.mark_needs_check(rid, end.reason)
            return Outcome.UNKNOWN


async def refund_money(request_id: str) -> Outcome:
    rec = await refundkit.get_record(request_id)
    if rec is None:
        raise LookupError("refund_money: unknown request " + request_id)
    if rec.status == Status.DONE:
        return Outcome.DONE
    if not await refundkit.claim(request_id, LEASE):
        cur = await refundkit.get_record(request_id)
        return {"done": Outcome.DONE, "failed": Outcome.FAILED, "needs_check": Outcome.UNKNOWN}.get(cur.status, Outcome.IN_PROGRESS)
    try:
        end = await decide(rec)
    except asyncio.CancelledError:
        end = End(Status.NEEDS_CHECK, "caller cancelled")
    except BaseException as e:
        await refundkit.mark_needs_check(request_id, f"crash: {e!r}")
        raise
    try:
        return await store(request_id, end)
    except refundkit.RefundKitError:
        if end.status != Status.NEEDS_CHECK:
            await refundkit.mark_needs_check(request_id, f"could not store {end.status}")
            return Outcome.UNKNOWN
        raise
    except BaseException:
        if end.status != Status.NEEDS_CHECK:
            await refundkit.mark_needs_check(request_id, f"crashed storing {end.status}")
        raise
