# Style: a frozen dataclass for the retry policy (four attempts, full jitter, 4-minute lease), an explicit while loop, isinstance checks, a settled flag guarding the claim.
"""Refund worker: claims the request, sends it under one idempotency key,
and records what the provider said."""
import asyncio
import random
from dataclasses import dataclass, field

import refundkit
from refundkit import Outcome, Status


class RefundRecordMissing(Exception):
    """The worker was handed a request id with no row behind it."""


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 4
    base: float = 0.5
    cap: float = 8.0
    longest_retry_after: float = 20.0
    lease: float = 240.0

    def pause(self, attempt: int) -> float:
        ceiling = min(self.cap, self.base * 2 ** attempt)
        return max(0.05, random.uniform(0, ceiling))


POLICY = RetryPolicy()


@dataclass
class Run:
    record: refundkit.Record
    doubt: bool = False  # some request may have reached the provider
    settled: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def rid(self) -> str:
        return self.record.request_id


async def write(run: Run, status: Status, reason: str = "") -> Outcome:
    try:
        if status == Status.DONE:
            await refundkit.mark_done(run.rid)
        elif status == Status.FAILED:
            await refundkit.mark_failed(run.rid, reason)
        else:
            await refundkit.mark_needs_check(run.rid, reason)
    except refundkit.RefundKitError as err:
        if status != Status.NEEDS_CHECK:
            try:
                await refundkit.mark_needs_check(run.rid, f"could not write {status}: {err}")
            except refundkit.RefundKitError:
                pass
            else:
                run.settled = True
                return Outcome.UNKNOWN
        run.settled = True  # nothing of ours is left to write; the lease will run out
        raise
    run.settled = True
    return {Status.DONE: Outcome.DONE, Status.FAILED: Outcome.FAILED}.get(status, Outcome.UNKNOWN)


async def find_ours(run: Run):
    for r in await refundkit.list_refunds(run.record.charge_id):
        if r.reference == run.rid and r.status not in ("failed", "canceled"):
            return r
    return None


async def by_lookup(run: Run, why: str) -> Outcome:
    try:
        found = await find_ours(run)
    except refundkit.RefundKitError as err:
        return await write(run, Status.NEEDS_CHECK, f"{why}; look-up failed: {err}")
    if found is None:
        return await write(run, Status.NEEDS_CHECK, why)
    if found.amount == run.record.amount:
        return await write(run, Status.DONE)
    return await write(run, Status.NEEDS_CHECK, f"provider holds {found.amount}, record asks {run.record.amount}")


async def send(run: Run) -> Outcome:
    rec = run.record
    key = f"refund/{rec.request_id}"
    attempt = 0
    while True:
        attempt += 1
        try:
            await refundkit.create_refund(rec.charge_id, rec.amount, idempotency_key=key, reference=rec.request_id)
        except refundkit.AlreadyRefunded:
            return await write(run, Status.DONE)
        except refundkit.RefundKitError as err:
            refundkit.log("attempt %d for %s: %r", attempt, rec.request_id, err)
            pause = POLICY.pause(attempt)
            if isinstance(err, refundkit.ConnectionFailed):
                pass
            elif isinstance(err, (refundkit.ProviderTimeout, refundkit.IdempotencyKeyInUse)):
                run.doubt = True
            elif isinstance(err, refundkit.RateLimited):
                if err.retry_after > POLICY.longest_retry_after:
                    break
                pause = max(pause, err.retry_after + random.uniform(0.05, 0.5))
            elif isinstance(err, refundkit.ServerError):
                run.doubt = True
                if err.replayed:
                    return await by_lookup(run, "the provider replays a saved server error")
            elif isinstance(err, refundkit.IdempotencyKeyReused):
                return await write(run, Status.NEEDS_CHECK, str(err))
            elif isinstance(err, (refundkit.InvalidRequest, refundkit.ResourceMissing)):
                if run.doubt:
                    return await by_lookup(run, f"refused after a doubtful attempt: {err}")
                return await write(run, Status.FAILED, str(err))
            else:
                status = Status.NEEDS_CHECK if run.doubt else Status.FAILED
                return await write(run, status, f"provider refused: {err!r}")
        else:
            return await write(run, Status.DONE)
        if attempt >= POLICY.attempts:
            break
        await asyncio.sleep(pause)
    if run.doubt:
        return await write(run, Status.NEEDS_CHECK, "out of attempts, a request may have landed")
    return await write(run, Status.FAILED, "out of attempts, nothing reached the provider")


async def work(run: Run) -> Outcome:
    if run.record.status != Status.PENDING:
        run.doubt = True
        try:
            found = await find_ours(run)
        except refundkit.RefundKitError as err:
            return await write(run, Status.NEEDS_CHECK, f"cannot check an earlier run: {err}")
        if found is not None:
            if found.amount == run.record.amount:
                return await write(run, Status.DONE)
            return await write(run, Status.NEEDS_CHECK, "earlier refund of another amount")
    return await send(run)


async def refund_money(request_id: str) -> Outcome:
    record = await refundkit.get_record(request_id)
    if record is None:
        raise RefundRecordMissing(f"no refund record for request {request_id!r}")
    if record.status == Status.DONE:
        return Outcome.DONE
    if not await refundkit.claim(request_id, POLICY.lease):
        now = await refundkit.get_record(request_id)
        return {
            Status.DONE: Outcome.DONE,
            Status.FAILED: Outcome.FAILED,
            Status.NEEDS_CHECK: Outcome.UNKNOWN,
        }.get(now.status, Outcome.IN_PROGRESS)
    run = Run(record)
    try:
        return await work(run)
    except asyncio.CancelledError:
        if run.settled:
            raise
        return await write(run, Status.NEEDS_CHECK, "the caller stopped waiting")
    except BaseException as err:
        if not run.settled:
            run.settled = True
            await refundkit.mark_needs_check(request_id, f"crashed mid-refund: {err!r}")
        raise
