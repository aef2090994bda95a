# Style: every request under asyncio.wait_for with a deadline of its own (8 s), a for/else over the attempts, a module-level table from exception class to action, retry waits from a precomputed schedule with +-25% jitter, a seven-minute lease.
import asyncio
import random

import refundkit as rk
from refundkit import Outcome, Status

LEASE = 7 * 60
PER_REQUEST = 8.0
SCHEDULE = [0.5, 1.5, 4.0, 9.0]  # four waits, five requests

RESEND, DOUBT, REFUSED, REPLAYED, ASK = "resend", "doubt", "refused", "replayed", "ask"
ACTIONS = [
    (rk.AlreadyRefunded, "done"),
    (rk.ConnectionFailed, RESEND),
    (rk.RateLimited, RESEND),
    (rk.ProviderTimeout, DOUBT),
    (rk.IdempotencyKeyInUse, DOUBT),
    (rk.ServerError, DOUBT),
    (rk.InvalidRequest, REFUSED),
    (rk.ResourceMissing, REFUSED),
    (rk.IdempotencyKeyReused, ASK),
]


def action_for(err):
    for cls, action in ACTIONS:
        if isinstance(err, cls):
            return action
    return ASK


def outcome_for(status):
    return {"done": Outcome.DONE, "failed": Outcome.FAILED, "needs_check": Outcome.UNKNOWN}.get(status, Outcome.IN_PROGRESS)


async def store(rid, status, reason=""):
    """Writes the final status; falls back to needs_check once. Raises if nothing could be stored."""
    try:
        if status == "done":
            await rk.mark_done(rid)
        elif status == "failed":
            await rk.mark_failed(rid, reason)
        else:
            await rk.mark_needs_check(rid, reason)
        return outcome_for(status)
    except rk.RefundKitError:
        if status == "needs_check":
            raise
        await rk.mark_needs_check(rid, f"storing {status} failed ({reason})")
        return Outcome.UNKNOWN


async def held_for(rec):
    refunds = await rk.list_refunds(rec.charge_id)
    return [r for r in refunds if r.reference == rec.request_id and r.status not in ("failed", "canceled")]


async def from_provider(rec, reason):
    try:
        held = await held_for(rec)
    except rk.RefundKitError as e:
        return await store(rec.request_id, "needs_check", f"{reason}; look-up: {e}")
    if held and held[0].amount == rec.amount:
        return await store(rec.request_id, "done")
    return await store(rec.request_id, "needs_check", reason)


async def process(rec):
    rid = rec.request_id
    doubt = rec.status != Status.PENDING
    if doubt:
        try:
            held = await held_for(rec)
        except rk.RefundKitError as e:
            return await store(rid, "needs_check", f"earlier run's result unknown: {e}")
        if held:
            if held[0].amount == rec.amount:
                return await store(rid, "done")
            return await store(rid, "needs_check", "a refund of another amount exists")
    for i in range(len(SCHEDULE) + 1):
        retry_after = 0.0
        try:
            await asyncio.wait_for(
                rk.create_refund(rec.charge_id, rec.amount, idempotency_key="rm." + rid, reference=rid),
                PER_REQUEST,
            )
        except asyncio.TimeoutError:
            doubt = True  # our own deadline: the request was sent and may still land
            wait = SCHEDULE[min(i, len(SCHEDULE) - 1)]
        except rk.RefundKitError as e:
            act = action_for(e)
            rk.log("request %d: %s -> %s", i + 1, type(e).__name__, act)
            if act == "done":
                return await store(rid, "done")
            if act == ASK:
                return await store(rid, "needs_check", str(e))
            if act == REFUSED:
                if doubt:
                    return await from_provider(rec, f"refused after doubt: {e}")
                return await store(rid, "failed", str(e))
            if act == DOUBT:
                doubt = True
                if isinstance(e, rk.ServerError) and e.replayed:
                    return await from_provider(rec, "replayed server error")
            wait = SCHEDULE[min(i, len(SCHEDULE) - 1)]
            if isinstance(e, rk.RateLimited):
                if e.retry_after > 30:
                    break
                retry_after = e.retry_after
        else:
            return await store(rid, "done")
        if i < len(SCHEDULE):
            wait = wait * random.uniform(0.75, 1.25)
            if retry_after:
                wait = max(wait, retry_after + 0.05)  # never sooner than asked
            await asyncio.sleep(wait)
    else:
        return await store(rid, "needs_check" if doubt else "failed", "no more attempts")
    return await store(rid, "needs_check" if doubt else "failed", "rate limited for too long")


async def refund_money(request_id: str) -> Outcome:
    rec = await rk.get_record(request_id)
    if rec is None:
        raise LookupError(f"refund record {request_id!r} not found")
    if rec.status == Status.DONE:
        return Outcome.DONE
    if not await rk.claim(request_id, LEASE):
        return outcome_for((await rk.get_record(request_id)).status)
    ended = False
    try:
        out = await process(rec)
        ended = True
        return out
    except asyncio.CancelledError:
        ended = True
        await rk.mark_needs_check(request_id, "the caller went away")
        return Outcome.UNKNOWN
    except rk.RefundKitError:
        ended = True  # a write failed: the record keeps what it said; the lease runs out
        raise
    finally:
        if not ended:
            await rk.mark_needs_check(request_id, "the code failed mid-run")
