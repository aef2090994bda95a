# Style: higher-order functions and closures: a generic retrying() helper takes the send as a callable and a classifier, functools.partial binds the parameters, the settle writers come from a factory; asyncio.gather checks the record and the provider together; seven attempts with the waits' ceiling tripling from 0.2 s (full jitter), a six-minute lease.
import asyncio
import functools
import random
from typing import Awaitable, Callable

import refundkit
from refundkit import Outcome, Status

LEASE = 360
ATTEMPTS = 7


def ceiling(n: int) -> float:
    return min(15.0, 0.2 * 3 ** (n - 1))


async def retrying(call: Callable[[], Awaitable[object]], classify: Callable[[Exception], tuple[str, float]], attempts: int):
    """Calls call until it succeeds or classify says stop. Returns
    ("ok", None) or (verdict, last exception)."""
    last = None
    for n in range(1, attempts + 1):
        try:
            await call()
            return "ok", None
        except refundkit.RefundKitError as e:
            last = e
            verdict, at_least = classify(e)
            refundkit.log("attempt %d: %s (%s)", n, type(e).__name__, verdict)
            if verdict != "again":
                return verdict, e
        if n < attempts:
            await asyncio.sleep(max(at_least, random.uniform(0.001, ceiling(n))))
    return "exhausted", last


def make_classifier(state: dict):
    def classify(e: Exception) -> tuple[str, float]:
        if isinstance(e, refundkit.AlreadyRefunded):
            return "ok", 0
        if isinstance(e, refundkit.ConnectionFailed):
            return "again", 0
        if isinstance(e, (refundkit.ProviderTimeout, refundkit.IdempotencyKeyInUse)):
            state["doubt"] = True
            return "again", 0
        if isinstance(e, refundkit.RateLimited):
            return ("again", e.retry_after) if e.retry_after <= 30 else ("exhausted", 0)
        if isinstance(e, refundkit.ServerError):
            state["doubt"] = True
            return ("replayed", 0) if e.replayed else ("again", 0)
        if isinstance(e, (refundkit.InvalidRequest, refundkit.ResourceMissing)):
            return "refused", 0
        if isinstance(e, refundkit.APIError) and e.status == 401:
            return "refused", 0
        return "unclear", 0
    return classify


def writers(rid: str, flags: dict):
    async def write(status: Status, reason: str = "") -> Outcome:
        mark = {
            Status.DONE: functools.partial(refundkit.mark_done, rid),
            Status.FAILED: functools.partial(refundkit.mark_failed, rid, reason),
            Status.NEEDS_CHECK: functools.partial(refundkit.mark_needs_check, rid, reason),
        }[status]
        try:
            await mark()
        except refundkit.RefundKitError as e:
            flags["written"] = True
            if status is Status.NEEDS_CHECK:
                raise
            await refundkit.mark_needs_check(rid, f"{status} could not be stored: {e}")
            return Outcome.UNKNOWN
        flags["written"] = True
        return {Status.DONE: Outcome.DONE, Status.FAILED: Outcome.FAILED}.get(status, Outcome.UNKNOWN)
    return write


def matching(refunds, rec):
    return next((r for r in refunds if r.reference == rec.request_id and r.status not in ("failed", "canceled")), None)


async def refund_money(request_id: str) -> Outcome:
    rec = await refundkit.get_record(request_id)
    if rec is None:
        raise ValueError(f"refund request {request_id!r} has no record")
    if rec.status == Status.DONE:
        return Outcome.DONE
    if not await refundkit.claim(request_id, LEASE):
        status = (await refundkit.get_record(request_id)).status
        return {Status.DONE: Outcome.DONE, Status.FAILED: Outcome.FAILED, Status.NEEDS_CHECK: Outcome.UNKNOWN}.get(status, Outcome.IN_PROGRESS)

    flags = {"written": False}
    write = writers(request_id, flags)
    state = {"doubt": rec.status != Status.PENDING}

    async def look_up():
        return matching(await refundkit.list_refunds(rec.charge_id), rec)

    async def by_provider(why: str) -> Outcome:
        try:
            found = await look_up()
        except refundkit.RefundKitError:
            return await write(Status.NEEDS_CHECK, why + "; look-up failed")
        if found is not None and found.amount == rec.amount:
            return await write(Status.DONE)
        return await write(Status.NEEDS_CHECK, why)

    try:
        if state["doubt"]:
            try:
                now, found = await asyncio.gather(refundkit.get_record(request_id), look_up())
            except refundkit.RefundKitError as e:
                return await write(Status.NEEDS_CHECK, f"cannot see what the last run did: {e}")
            if found is not None:
                ok = found.amount == now.amount
                return await write(Status.DONE if ok else Status.NEEDS_CHECK, "" if ok else "amount mismatch")
        send = functools.partial(refundkit.create_refund, rec.charge_id, rec.amount,
                                 idempotency_key=f"refund.{request_id}", reference=request_id)
        verdict, err = await retrying(send, make_classifier(state), ATTEMPTS)
        if verdict == "ok" or isinstance(err, refundkit.AlreadyRefunded):
            return await write(Status.DONE)
        if verdict == "replayed":
            return await by_provider("saved server error")
        if verdict == "refused":
            if state["doubt"]:
                return await by_provider(f"refused after doubt: {err}")
            return await write(Status.FAILED, str(err))
        if verdict == "unclear":
            return await write(Status.NEEDS_CHECK, str(err))
        return await write(Status.NEEDS_CHECK if state["doubt"] else Status.FAILED, f"gave up: {err}")
    except asyncio.CancelledError:
        if flags["written"]:
            raise
        return await write(Status.NEEDS_CHECK, "cancelled")
    except BaseException as e:
        if not flags["written"]:
            flags["written"] = True
            await refundkit.mark_needs_check(request_id, f"crash: {type(e).__name__}")
        raise
