# From: correct/match_verdicts.py
# Drops: the error of a failed write: a database error while recording is logged and swallowed, and the outcome returned names a status the record does not hold.
# invariant: outcome-matches-state
import asyncio
import enum
import random

import refundkit
from refundkit import Outcome, Status

ATTEMPTS = 3
LEASE_SECONDS = 120
KEY_PREFIX = "rf_"


class Verdict(enum.Enum):
    RESEND = enum.auto()          # never left: nothing happened
    RESEND_IN_DOUBT = enum.auto()  # sent, no clear answer
    SLOW_DOWN = enum.auto()       # 429
    GONE = enum.auto()            # money already back: done
    REFUSED = enum.auto()         # a definitive 4xx
    ASK_PROVIDER = enum.auto()    # a saved 5xx replays: resending is pointless
    HUMAN = enum.auto()           # someone must look


def verdict_of(exc: BaseException) -> Verdict:
    match exc:
        case refundkit.ConnectionFailed():
            return Verdict.RESEND
        case refundkit.ProviderTimeout() | refundkit.IdempotencyKeyInUse():
            return Verdict.RESEND_IN_DOUBT
        case refundkit.RateLimited():
            return Verdict.SLOW_DOWN
        case refundkit.AlreadyRefunded():
            return Verdict.GONE
        case refundkit.ServerError(replayed=True):
            return Verdict.ASK_PROVIDER
        case refundkit.ServerError():
            return Verdict.RESEND_IN_DOUBT
        case refundkit.InvalidRequest() | refundkit.ResourceMissing():
            return Verdict.REFUSED
        case refundkit.APIError(status=401):
            return Verdict.REFUSED
        case _:
            return Verdict.HUMAN


def equal_jitter(n: int) -> float:
    half = min(16.0, 0.4 * 2 ** n) / 2
    return half + random.uniform(0.01, half)


async def refund_money(request_id: str) -> Outcome:
    rec = await refundkit.get_record(request_id)
    if rec is None:
        raise ValueError(f"refund request {request_id} does not exist")
    match rec.status:
        case Status.DONE:
            return Outcome.DONE
    got = await refundkit.claim(request_id, LEASE_SECONDS)
    if not got:
        again = await refundkit.get_record(request_id)
        match again.status:
            case Status.DONE:
                return Outcome.DONE
            case Status.FAILED:
                return Outcome.FAILED
            case Status.NEEDS_CHECK:
                return Outcome.UNKNOWN
            case _:
                return Outcome.IN_PROGRESS

    finished = False

    async def end(status: Status, why: str = "") -> Outcome:
        nonlocal finished
        try:
            match status:
                case Status.DONE:
                    await refundkit.mark_done(request_id)
                    outcome = Outcome.DONE
                case Status.FAILED:
                    await refundkit.mark_failed(request_id, why)
                    outcome = Outcome.FAILED
                case _:
                    await refundkit.mark_needs_check(request_id, why)
                    outcome = Outcome.UNKNOWN
        except refundkit.RefundKitError as e:
            refundkit.log("could not record %s: %s", status, e)
            outcome = {Status.DONE: Outcome.DONE, Status.FAILED: Outcome.FAILED}.get(status, Outcome.UNKNOWN)
        finished = True
        return outcome

    async def ours_at_provider():
        held = await refundkit.list_refunds(rec.charge_id)
        mine = [r for r in held if r.reference == request_id and r.status not in ("failed", "canceled")]
        return mine[0] if mine else None

    async def settle_by_lookup(why: str) -> Outcome:
        try:
            found = await ours_at_provider()
        except refundkit.RefundKitError as e:
            return await end(Status.NEEDS_CHECK, f"{why}; look-up: {e}")
        match found:
            case None:
                return await end(Status.NEEDS_CHECK, why)
            case refundkit.ProviderRefund(amount=amount) if amount == rec.amount:
                return await end(Status.DONE)
            case _:
                return await end(Status.NEEDS_CHECK, f"{why}; found another amount")

    try:
        doubt = rec.status != Status.PENDING
        if doubt:
            try:
                found = await ours_at_provider()
            except refundkit.RefundKitError as e:
                return await end(Status.NEEDS_CHECK, f"earlier run unsettled, look-up failed: {e}")
            if found is not None:
                if found.amount == rec.amount:
                    return await end(Status.DONE)
                return await end(Status.NEEDS_CHECK, "earlier refund of another amount")

        for n in range(1, ATTEMPTS + 1):
            try:
                await refundkit.create_refund(rec.charge_id, rec.amount, idempotency_key=KEY_PREFIX + request_id, reference=request_id)
            except refundkit.RefundKitError as e:
                refundkit.log("try %d: %s", n, e)
                wait = equal_jitter(n)
                match verdict_of(e):
                    case Verdict.GONE:
                        return await end(Status.DONE)
                    case Verdict.RESEND:
                        pass
                    case Verdict.RESEND_IN_DOUBT:
                        doubt = True
                    case Verdict.SLOW_DOWN:
                        if e.retry_after > 60:
                            break
                        wait = max(wait, e.retry_after + 0.1)
                    case Verdict.ASK_PROVIDER:
                        return await settle_by_lookup("a saved server error replays")
                    case Verdict.REFUSED if doubt:
                        return await settle_by_lookup(f"refused after doubt: {e}")
                    case Verdict.REFUSED:
                        return await end(Status.FAILED, str(e))
                    case Verdict.HUMAN:
                        return await end(Status.NEEDS_CHECK, repr(e))
                if n < ATTEMPTS:
                    await asyncio.sleep(wait)
            else:
                return await end(Status.DONE)
        if doubt:
            return await end(Status.NEEDS_CHECK, "no clear answer after every try")
        return await end(Status.FAILED, "never reached the provider")
    except asyncio.CancelledError:
        if finished:
            raise
        return await end(Status.NEEDS_CHECK, "cancelled by the caller")
    except BaseException as e:
        if not finished:
            finished = True
            await refundkit.mark_needs_check(request_id, f"bug: {e!r}")
        raise
