# Style: one straight-line function with no helpers but a tiny writer, `async with asyncio.timeout(...)` (3.11) around each request, try/finally for the guard, three attempts, full jitter from a 2 s base, a 150-second lease, the reference spelled with a prefix.
import asyncio
import random

import refundkit
from refundkit import Outcome, Status


async def _write(rid: str, status: Status, why: str) -> Outcome:
    if status == Status.DONE:
        await refundkit.mark_done(rid)
        return Outcome.DONE
    if status == Status.FAILED:
        await refundkit.mark_failed(rid, why)
        return Outcome.FAILED
    await refundkit.mark_needs_check(rid, why)
    return Outcome.UNKNOWN


async def refund_money(request_id: str) -> Outcome:
    rec = await refundkit.get_record(request_id)
    if rec is None:
        raise LookupError(f"refund_money({request_id!r}): no record")
    if rec.status == Status.DONE:
        return Outcome.DONE
    if not await refundkit.claim(request_id, 150):
        rec = await refundkit.get_record(request_id)
        if rec.status == Status.DONE:
            return Outcome.DONE
        if rec.status == Status.FAILED:
            return Outcome.FAILED
        return Outcome.UNKNOWN if rec.status == Status.NEEDS_CHECK else Outcome.IN_PROGRESS

    reference = "req:" + request_id
    status, why = None, ""
    stored = False
    try:
        doubt = rec.status != Status.PENDING
        if doubt:
            try:
                held = await refundkit.list_refunds(rec.charge_id)
            except refundkit.RefundKitError as e:
                held = None
                status, why = Status.NEEDS_CHECK, f"look-up failed: {e}"
            for r in held or []:
                if r.reference == reference and r.status not in ("failed", "canceled"):
                    status = Status.DONE if r.amount == rec.amount else Status.NEEDS_CHECK
                    why = "" if status == Status.DONE else "earlier refund has another amount"
                    break
        attempt = 0
        while status is None:
            attempt += 1
            retry_after = 0.0
            try:
                async with asyncio.timeout(12):
                    await refundkit.create_refund(rec.charge_id, rec.amount, idempotency_key="refund-key-" + request_id, reference=reference)
                status = Status.DONE
                break
            except TimeoutError:
                doubt = True
            except refundkit.AlreadyRefunded:
                status = Status.DONE
                break
            except refundkit.ConnectionFailed:
                pass
            except (refundkit.ProviderTimeout, refundkit.IdempotencyKeyInUse):
                doubt = True
            except refundkit.RateLimited as e:
                if e.retry_after > 30:
                    break
                retry_after = e.retry_after
            except refundkit.ServerError as e:
                doubt = True
                if e.replayed:
                    break  # resending replays the same 5xx: ask the provider below
            except (refundkit.InvalidRequest, refundkit.ResourceMissing) as e:
                if not doubt:
                    status, why = Status.FAILED, str(e)
                break
            except refundkit.RefundKitError as e:
                status, why = Status.NEEDS_CHECK, f"unexpected answer: {e}"
                break
            if attempt == 3:
                break
            await asyncio.sleep(max(retry_after, random.uniform(0.01, 2.0 * 2 ** (attempt - 1))))

        if status is None and doubt:
            # Something may have landed: the provider decides.
            try:
                held = await refundkit.list_refunds(rec.charge_id)
                mine = [r for r in held if r.reference == reference and r.status not in ("failed", "canceled")]
                if mine and mine[0].amount == rec.amount:
                    status = Status.DONE
            except refundkit.RefundKitError:
                pass
            if status is None:
                status, why = Status.NEEDS_CHECK, "no clear answer from the provider"
        if status is None:
            status, why = Status.FAILED, "no request reached the provider"
    except asyncio.CancelledError:
        status, why = Status.NEEDS_CHECK, "cancelled"
    finally:
        if status is None:
            # An exception of the code or a helper: never leave processing.
            stored = True
            await refundkit.mark_needs_check(request_id, "run ended by an exception")
    if stored:
        return Outcome.UNKNOWN  # not reached: the exception goes on
    try:
        return await _write(request_id, status, why)
    except refundkit.RefundKitError:
        if status != Status.NEEDS_CHECK:
            await refundkit.mark_needs_check(request_id, f"storing {status} failed")
            return Outcome.UNKNOWN
        raise
    except BaseException:
        if status != Status.NEEDS_CHECK:
            await refundkit.mark_needs_check(request_id, f"storing {status} crashed")
        raise
