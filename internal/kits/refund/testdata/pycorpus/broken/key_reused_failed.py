# From: correct/context_manager_claim.py
# Drops: the doubt behind an idempotency_error: IdempotencyKeyReused falls to the catch-all, which records failed for any API error when no attempt was unclear, though the key's first request may have refunded (P6).
# invariant: unknown-not-failed
from __future__ import annotations

import asyncio
import contextlib
import random
from typing import AsyncIterator, Optional

import refundkit
from refundkit import Outcome, Record, Status

MAX_SENDS = 6
LEASE = 600.0
BASE, CAP = 0.25, 20.0


class NoSuchRefund(Exception):
    pass


class Claimed:
    """What the body of the claim may do: record the end exactly once."""

    def __init__(self, record: Record) -> None:
        self.record = record
        self.closed = False

    async def close(self, status: Status, why: str = "") -> Outcome:
        rid = self.record.request_id
        writers = {
            Status.DONE: lambda: refundkit.mark_done(rid),
            Status.FAILED: lambda: refundkit.mark_failed(rid, why),
            Status.NEEDS_CHECK: lambda: refundkit.mark_needs_check(rid, why),
        }
        try:
            await writers[status]()
        except refundkit.RefundKitError as first:
            if status is not Status.NEEDS_CHECK:
                with contextlib.suppress(refundkit.RefundKitError):
                    await refundkit.mark_needs_check(rid, f"{status} not recorded: {first}")
            self.closed = True
            raise
        self.closed = True
        return {Status.DONE: Outcome.DONE, Status.FAILED: Outcome.FAILED}.get(status, Outcome.UNKNOWN)


@contextlib.asynccontextmanager
async def claimed(record: Record) -> AsyncIterator[Optional[Claimed]]:
    if not await refundkit.claim(record.request_id, LEASE):
        yield None
        return
    c = Claimed(record)
    try:
        yield c
    except BaseException as exc:
        if not c.closed:
            c.closed = True
            await refundkit.mark_needs_check(record.request_id, f"left mid-run: {type(exc).__name__}")
        raise


def status_to_outcome(status: Status) -> Outcome:
    if status == Status.DONE:
        return Outcome.DONE
    if status == Status.FAILED:
        return Outcome.FAILED
    if status == Status.NEEDS_CHECK:
        return Outcome.UNKNOWN
    return Outcome.IN_PROGRESS


async def provider_copy(record: Record) -> Optional[refundkit.ProviderRefund]:
    refunds = await refundkit.list_refunds(record.charge_id)
    return next((r for r in refunds if r.reference == record.request_id and r.status not in ("failed", "canceled")), None)


async def after_doubt(c: Claimed, why: str) -> Outcome:
    try:
        found = await provider_copy(c.record)
    except refundkit.RefundKitError:
        return await c.close(Status.NEEDS_CHECK, why + " (look-up failed)")
    if found is not None and found.amount == c.record.amount:
        return await c.close(Status.DONE)
    return await c.close(Status.NEEDS_CHECK, why)


async def attempt_all(c: Claimed, in_doubt: bool) -> Outcome:
    rec = c.record
    sleep = BASE
    for n in range(MAX_SENDS):
        try:
            await refundkit.create_refund(rec.charge_id, rec.amount, f"idem-{rec.request_id}", rec.request_id)
            return await c.close(Status.DONE)
        except refundkit.AlreadyRefunded:
            return await c.close(Status.DONE)
        except (refundkit.ConnectionFailed, refundkit.ProviderTimeout, refundkit.IdempotencyKeyInUse, refundkit.RateLimited, refundkit.ServerError) as e:
            refundkit.log("send %d of %d failed: %s", n + 1, MAX_SENDS, type(e).__name__)
            if not isinstance(e, (refundkit.ConnectionFailed, refundkit.RateLimited)):
                in_doubt = True
            if isinstance(e, refundkit.ServerError) and e.replayed:
                return await after_doubt(c, "saved 5xx replayed")
            sleep = min(CAP, random.uniform(BASE, sleep * 3))
            wait = sleep
            if isinstance(e, refundkit.RateLimited) and e.retry_after:
                if e.retry_after > 30:
                    break
                wait = max(wait, e.retry_after)
        except (refundkit.InvalidRequest, refundkit.ResourceMissing) as e:
            if in_doubt:
                return await after_doubt(c, f"refused after doubt: {e}")
            return await c.close(Status.FAILED, f"provider refused: {e}")
        except refundkit.RefundKitError as e:
            return await c.close(Status.NEEDS_CHECK if in_doubt or not isinstance(e, refundkit.APIError) else Status.FAILED, str(e))
        if n + 1 < MAX_SENDS:
            await asyncio.sleep(wait)
    return await c.close(Status.NEEDS_CHECK if in_doubt else Status.FAILED, "gave up")


async def refund_money(request_id: str) -> Outcome:
    record = await refundkit.get_record(request_id)
    if record is None:
        raise NoSuchRefund(f"refund_money: no record {request_id}")
    if record.status == Status.DONE:
        return Outcome.DONE
    async with claimed(record) as c:
        if c is None:
            latest = await refundkit.get_record(request_id)
            return status_to_outcome(latest.status)
        try:
            unsettled = record.status != Status.PENDING
            if unsettled:
                try:
                    found = await provider_copy(record)
                except refundkit.RefundKitError as e:
                    return await c.close(Status.NEEDS_CHECK, f"look-up before resend failed: {e}")
                if found is not None:
                    same = found.amount == record.amount
                    return await c.close(Status.DONE if same else Status.NEEDS_CHECK, "" if same else "amount differs")
            return await attempt_all(c, unsettled)
        except asyncio.CancelledError:
            if c.closed:
                raise
            return await c.close(Status.NEEDS_CHECK, "caller cancelled")
