"""Processes stored refund requests.

refund_money sends a stored refund request to the payment provider at most
once, however often it runs, fails, crashes or overlaps with itself, and
leaves the record saying what is known about the refund: done when the
provider has it, failed when it certainly does not, needs_check when nobody
can tell without looking at the provider.
"""
import asyncio
import random

import refundkit
from refundkit import Outcome, Status

# The refund requests of one run are bounded.
MAX_ATTEMPTS = 5

# The wait after attempt n is BASE_DELAY doubled n-1 times, capped at
# MAX_DELAY, of which a random 50-100% is kept: many workers that failed
# together (a provider outage) then do not all come back at once.
BASE_DELAY = 0.5
MAX_DELAY = 30.0

# The longest wait an answer's Retry-After may ask of one run; a longer one
# ends the run and leaves the request to a later run.
MAX_RETRY_AFTER = 30.0

# The claim outlasts the worst run (5 attempts and 4 look-ups of up to 10 s,
# 4 waits of up to MAX_RETRY_AFTER, 2 between look-ups): about 3.5 minutes.
CLAIM_LEASE = 300.0

# Each reconciliation look-up (list_refunds) is tried at most this often.
LOOKUP_ATTEMPTS = 2


class MissingRecord(LookupError):
    """There is no refund request with this id."""


def idempotency_key(request_id: str) -> str:
    # Names the operation, not the attempt: every attempt and every run for
    # one request sends the same key, so the provider applies it once.
    return "refund-" + request_id


def backoff(attempt: int) -> float:
    delay = min(BASE_DELAY * 2 ** (attempt - 1), MAX_DELAY)
    return delay / 2 + random.uniform(0, delay / 2)


async def refund_money(request_id: str) -> Outcome:
    record = await refundkit.get_record(request_id)
    if record is None:
        raise MissingRecord(f"refund {request_id}: no refund request with this id")
    if record.status == Status.DONE:
        return Outcome.DONE

    # The status check above is only a shortcut: two workers can both pass
    # it. The atomic claim is what lets exactly one of them go on.
    if not await refundkit.claim(request_id, CLAIM_LEASE):
        return await current_outcome(request_id)

    run = RefundRun(record)
    try:
        # A record left in needs_check or processing by an earlier run may
        # already be refunded, and that run's key may have expired at the
        # provider: look before sending.
        if record.status in (Status.NEEDS_CHECK, Status.PROCESSING):
            run.ambiguous = True
            try:
                found = await run.find_refund()
            except refundkit.RefundKitError as e:
                return await run.finish(Status.NEEDS_CHECK, f"an earlier run's outcome is unknown and the provider could not be asked: {e}")
            if found is not None:
                refundkit.log("refund %s: an earlier run's refund %s was found at the provider", request_id, found.id)
                return await run.settle_found(found)
        return await run.send()
    finally:
        if not run.settled:
            # Cancelled, or an exception: the refund may have been sent, so
            # the record must not stay in processing.
            await run.release_unsettled()


async def current_outcome(request_id: str) -> Outcome:
    """What the record says after our claim was refused."""
    record = await refundkit.get_record(request_id)
    if record is None:
        raise MissingRecord(f"refund {request_id}: the record went away")
    return {
        Status.DONE: Outcome.DONE,
        Status.FAILED: Outcome.FAILED,
        Status.NEEDS_CHECK: Outcome.UNKNOWN,
    }.get(record.status, Outcome.IN_PROGRESS)


class RefundRun:
    """One claimed run of refund_money."""

    def __init__(self, record: refundkit.Record):
        self.record = record
        self.key = idempotency_key(record.request_id)
        # Set once a request may have reached the provider without a
        # definite answer: from then on the refund cannot be called failed.
        self.ambiguous = False
        self.settled = False

    async def send(self) -> Outcome:
        rid = self.record.request_id
        why = ""
        for attempt in range(1, MAX_ATTEMPTS + 1):
            retry_after = 0.0
            try:
                await refundkit.create_refund(self.record.charge_id, self.record.amount,
                                              idempotency_key=self.key, reference=rid)
                return await self.finish(Status.DONE)
            except refundkit.ConnectionFailed as e:
                why = f"attempt {attempt}: {e}"  # never sent: resend
            except refundkit.IdempotencyKeyInUse as e:
                # Checked before the other API errors: our first request
                # with this key may still land.
                self.ambiguous = True
                why = f"attempt {attempt}: {e}"
                retry_after = e.retry_after
                if e.replayed:
                    break
            except refundkit.AlreadyRefunded:
                return await self.finish(Status.DONE)
            except refundkit.IdempotencyKeyReused as e:
                # Something ran under our key with other parameters: a person
                # must look, failing it would invite a second refund later.
                return await self.finish(Status.NEEDS_CHECK, str(e))
            except (refundkit.InvalidRequest, refundkit.ResourceMissing) as e:
                if self.ambiguous:
                    return await self.finish(Status.NEEDS_CHECK, f"refused after an earlier attempt with no answer: {e}")
                return await self.finish(Status.FAILED, str(e))
            except refundkit.RateLimited as e:
                why = f"attempt {attempt}: {e}"
                retry_after = e.retry_after
            except refundkit.APIError as e:
                # A 5xx or anything unrecognised: it may have happened.
                self.ambiguous = True
                why = f"attempt {attempt}: {e}"
                retry_after = e.retry_after
                if e.replayed:
                    break  # the provider replays this answer to every resend: ask instead
            except refundkit.RefundKitError as e:
                # A timeout after sending, or anything else: unsure means
                # "may have happened", never "failed".
                self.ambiguous = True
                why = f"attempt {attempt}: {e}"
            refundkit.log("refund %s: attempt %d of %d (key %s) failed: %s", rid, attempt, MAX_ATTEMPTS, self.key, why)
            if attempt == MAX_ATTEMPTS:
                break
            if retry_after > MAX_RETRY_AFTER:
                why = f"attempt {attempt}: rate limited for {retry_after}s"
                break
            await asyncio.sleep(max(backoff(attempt), retry_after))
        return await self.give_up(why)

    async def give_up(self, why: str) -> Outcome:
        if not self.ambiguous:
            # Every attempt was refused before it ran: certainly not refunded.
            return await self.finish(Status.FAILED, "gave up: " + why)
        try:
            found = await self.find_refund()
        except refundkit.RefundKitError:
            found = None
        if found is not None:
            return await self.settle_found(found)
        return await self.finish(Status.NEEDS_CHECK, "outcome unknown: " + why)

    async def find_refund(self) -> refundkit.ProviderRefund | None:
        """A refund at the provider carrying this request's reference."""
        for attempt in range(1, LOOKUP_ATTEMPTS + 1):
            try:
                refunds = await refundkit.list_refunds(self.record.charge_id)
            except refundkit.RefundKitError as e:
                refundkit.log("refund %s: look-up %d of %d failed: %s", self.record.request_id, attempt, LOOKUP_ATTEMPTS, e)
                if attempt == LOOKUP_ATTEMPTS:
                    raise
                await asyncio.sleep(backoff(attempt))
                continue
            for r in refunds:
                if r.reference == self.record.request_id and r.status not in ("failed", "canceled"):
                    return r
            return None
        return None

    async def settle_found(self, found: refundkit.ProviderRefund) -> Outcome:
        if found.amount == self.record.amount:
            return await self.finish(Status.DONE)
        return await self.finish(Status.NEEDS_CHECK,
                                 f"the provider holds refund {found.id} of {found.amount} for this request, the record asks for {self.record.amount}")

    async def finish(self, status: Status, reason: str = "") -> Outcome:
        rid = self.record.request_id
        if status == Status.DONE:
            await refundkit.mark_done(rid)
            outcome = Outcome.DONE
        elif status == Status.FAILED:
            await refundkit.mark_failed(rid, reason)
            outcome = Outcome.FAILED
        else:
            await refundkit.mark_needs_check(rid, reason)
            outcome = Outcome.UNKNOWN
        self.settled = True
        if status != Status.DONE:
            refundkit.log("refund %s: recorded %s: %s", rid, status, reason)
        return outcome

    async def release_unsettled(self) -> None:
        rid = self.record.request_id
        reason = "the run stopped before recording a result; a refund may have been sent"
        try:
            await refundkit.mark_needs_check(rid, reason)
        except refundkit.RefundKitError as e:
            refundkit.log("refund %s: could not release the claim: %s", rid, e)
            return
        refundkit.log("refund %s: recorded needs_check: %s", rid, reason)
