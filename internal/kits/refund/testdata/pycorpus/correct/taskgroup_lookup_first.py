# Style: asyncio.TaskGroup (3.11) re-reads the record and asks the provider at once, with except* for the group's errors; it always looks the refund up before sending, even for a fresh record; a look-up asked twice with a wait between; three attempts; 90-second lease; capped exponential backoff with full jitter on top of a floor.
import asyncio
import random

import refundkit
from refundkit import Outcome, Status

LEASE = 90
SENDS = 3


def pause(n: int) -> float:
    return 0.2 + random.random() * min(6.0, 0.5 * 2 ** n)


class Recorder:
    def __init__(self, rid: str):
        self.rid = rid
        self.done = False

    async def __call__(self, status: Status, reason: str = "") -> Outcome:
        try:
            if status == Status.DONE:
                await refundkit.mark_done(self.rid)
                result = Outcome.DONE
            elif status == Status.FAILED:
                await refundkit.mark_failed(self.rid, reason)
                result = Outcome.FAILED
            else:
                await refundkit.mark_needs_check(self.rid, reason)
                result = Outcome.UNKNOWN
        except refundkit.RefundKitError as e:
            if status != Status.NEEDS_CHECK:
                try:
                    await refundkit.mark_needs_check(self.rid, f"failed to record {status}: {e}")
                except refundkit.RefundKitError:
                    pass
            self.done = True
            raise
        self.done = True
        return result


async def state_and_refunds(rid: str, charge: str):
    """The record as it is now and the provider's refunds for the charge,
    asked together; the refunds are None when the provider could not say."""
    for n in range(2):
        try:
            async with asyncio.TaskGroup() as tg:
                rec_task = tg.create_task(refundkit.get_record(rid))
                list_task = tg.create_task(refundkit.list_refunds(charge))
            return rec_task.result(), list_task.result()
        except* refundkit.RefundKitError:
            pass
        if n == 0:
            await asyncio.sleep(pause(1))
    return None, None


def ours(refunds, rec):
    for r in refunds:
        if r.reference == rec.request_id and r.status not in ("failed", "canceled"):
            return r
    return None


async def settle_after_doubt(record: Recorder, rec, why: str) -> Outcome:
    _, refunds = await state_and_refunds(rec.request_id, rec.charge_id)
    if refunds is not None:
        r = ours(refunds, rec)
        if r is not None and r.amount == rec.amount:
            return await record(Status.DONE)
    return await record(Status.NEEDS_CHECK, why)


async def run(record: Recorder, rec) -> Outcome:
    doubt = rec.status != Status.PENDING
    now, refunds = await state_and_refunds(rec.request_id, rec.charge_id)
    if refunds is None:
        if doubt:
            return await record(Status.NEEDS_CHECK, "could not look the earlier run up")
    else:
        r = ours(refunds, rec)
        if r is not None:
            if r.amount == rec.amount:
                return await record(Status.DONE)
            return await record(Status.NEEDS_CHECK, f"provider has {r.amount} under our reference")
    key = "refund_" + rec.request_id
    for n in range(1, SENDS + 1):
        try:
            await refundkit.create_refund(rec.charge_id, rec.amount, idempotency_key=key, reference=rec.request_id)
        except refundkit.AlreadyRefunded:
            return await record(Status.DONE)
        except (refundkit.InvalidRequest, refundkit.ResourceMissing) as e:
            if doubt:
                return await settle_after_doubt(record, rec, f"refused after an unclear attempt: {e}")
            return await record(Status.FAILED, str(e))
        except refundkit.IdempotencyKeyReused as e:
            return await record(Status.NEEDS_CHECK, str(e))
        except refundkit.RefundKitError as e:
            wait = pause(n)
            if isinstance(e, refundkit.ServerError):
                doubt = True
                if e.replayed:
                    return await settle_after_doubt(record, rec, "saved 5xx")
            elif isinstance(e, (refundkit.ProviderTimeout, refundkit.IdempotencyKeyInUse)):
                doubt = True
            elif isinstance(e, refundkit.RateLimited):
                if e.retry_after > 25:
                    break
                wait += e.retry_after
            elif not isinstance(e, refundkit.ConnectionFailed):
                return await record(Status.NEEDS_CHECK if doubt else Status.FAILED, repr(e))
            if n < SENDS:
                await asyncio.sleep(wait)
        else:
            return await record(Status.DONE)
    return await record(Status.NEEDS_CHECK if doubt else Status.FAILED, "attempts exhausted")


async def refund_money(request_id: str) -> Outcome:
    rec = await refundkit.get_record(request_id)
    if rec is None:
        raise RuntimeError(f"refund {request_id}: no such record")
    if rec.status == Status.DONE:
        return Outcome.DONE
    if not await refundkit.claim(request_id, LEASE):
        latest = await refundkit.get_record(request_id)
        if latest.status in (Status.DONE, Status.FAILED):
            return Outcome(latest.status)
        return Outcome.UNKNOWN if latest.status == Status.NEEDS_CHECK else Outcome.IN_PROGRESS
    record = Recorder(request_id)
    try:
        return await run(record, rec)
    except asyncio.CancelledError:
        if record.done:
            raise
        return await record(Status.NEEDS_CHECK, "cancelled")
    except BaseException as e:
        if not record.done:
            record.done = True
            await refundkit.mark_needs_check(request_id, f"{type(e).__name__} while refunding")
        raise
