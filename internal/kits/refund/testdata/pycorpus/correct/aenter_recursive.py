# Style: a class with __aenter__/__aexit__ owning the claim; attempts made by recursion rather than a loop; full jitter from base 1 s; five attempts; a three-minute lease; the reason strings built by one helper.
import asyncio
import random

import refundkit
from refundkit import Outcome, Status


class RefundJob:
    LEASE = 180
    TRIES = 5

    def __init__(self, rec):
        self.rec = rec
        self.owned = False
        self.final = None  # the outcome once a final status is stored
        self.maybe_sent = rec.status != Status.PENDING

    @property
    def key(self):
        return "refund-money:" + self.rec.request_id

    async def __aenter__(self):
        self.owned = await refundkit.claim(self.rec.request_id, self.LEASE)
        return self

    async def __aexit__(self, exc_type, exc, tb):
        if not self.owned or self.final is not None or exc_type is None:
            return False
        self.final = Outcome.UNKNOWN
        if issubclass(exc_type, asyncio.CancelledError):
            await refundkit.mark_needs_check(self.rec.request_id, "cancelled mid-run")
            return True  # swallow: refund_money reports unknown
        await refundkit.mark_needs_check(self.rec.request_id, f"unexpected {exc_type.__name__}")
        return False

    async def record(self, status, note=""):
        rid = self.rec.request_id
        try:
            if status == Status.DONE:
                await refundkit.mark_done(rid)
            elif status == Status.FAILED:
                await refundkit.mark_failed(rid, note)
            else:
                await refundkit.mark_needs_check(rid, note)
        except refundkit.RefundKitError:
            self.final = Outcome.UNKNOWN  # nothing more of ours to write
            if status != Status.NEEDS_CHECK:
                try:
                    await refundkit.mark_needs_check(rid, self.why("could not store " + status))
                except refundkit.RefundKitError:
                    pass
                else:
                    return self.final
            raise
        self.final = {Status.DONE: Outcome.DONE, Status.FAILED: Outcome.FAILED}.get(status, Outcome.UNKNOWN)
        return self.final

    def why(self, text):
        return f"{self.rec.request_id}: {text}"

    async def lookup(self):
        for r in await refundkit.list_refunds(self.rec.charge_id):
            if r.reference == self.rec.request_id and r.status not in ("failed", "canceled"):
                return r
        return None

    async def trust_provider(self, note):
        try:
            found = await self.lookup()
        except refundkit.RefundKitError as e:
            return await self.record(Status.NEEDS_CHECK, self.why(f"{note}; look-up failed: {e}"))
        if found and found.amount == self.rec.amount:
            return await self.record(Status.DONE)
        return await self.record(Status.NEEDS_CHECK, self.why(note))

    async def attempt(self, n):
        if n > self.TRIES:
            if self.maybe_sent:
                return await self.record(Status.NEEDS_CHECK, self.why("tries used up, outcome unknown"))
            return await self.record(Status.FAILED, self.why("tries used up, nothing sent"))
        try:
            await refundkit.create_refund(self.rec.charge_id, self.rec.amount, idempotency_key=self.key, reference=self.rec.request_id)
        except refundkit.AlreadyRefunded:
            return await self.record(Status.DONE)
        except refundkit.ConnectionFailed:
            pause = 0
        except (refundkit.ProviderTimeout, refundkit.IdempotencyKeyInUse):
            self.maybe_sent = True
            pause = 0
        except refundkit.RateLimited as e:
            if e.retry_after > 45:
                return await self.attempt(self.TRIES + 1)
            pause = e.retry_after
        except refundkit.ServerError as e:
            self.maybe_sent = True
            if e.replayed:
                return await self.trust_provider("provider replays a saved 5xx")
            pause = 0
        except (refundkit.InvalidRequest, refundkit.ResourceMissing) as e:
            if self.maybe_sent:
                return await self.trust_provider(f"refused after an unclear try: {e}")
            return await self.record(Status.FAILED, self.why(str(e)))
        except refundkit.RefundKitError as e:
            return await self.record(Status.NEEDS_CHECK, self.why(repr(e)))
        else:
            return await self.record(Status.DONE)
        if n < self.TRIES:
            jitter = random.uniform(0, min(30.0, 2.0 ** (n - 1)))
            await asyncio.sleep(max(pause, jitter, 0.001))
        return await self.attempt(n + 1)

    async def run(self):
        if self.rec.status != Status.PENDING:
            try:
                found = await self.lookup()
            except refundkit.RefundKitError as e:
                return await self.record(Status.NEEDS_CHECK, self.why(f"no look-up possible: {e}"))
            if found is not None:
                if found.amount != self.rec.amount:
                    return await self.record(Status.NEEDS_CHECK, self.why("amount mismatch at provider"))
                return await self.record(Status.DONE)
        return await self.attempt(1)


async def refund_money(request_id: str) -> Outcome:
    rec = await refundkit.get_record(request_id)
    if rec is None:
        raise KeyError(f"no refund request {request_id}")
    if rec.status == Status.DONE:
        return Outcome.DONE
    async with RefundJob(rec) as job:
        if not job.owned:
            now = await refundkit.get_record(request_id)
            if now.status == Status.DONE:
                return Outcome.DONE
            if now.status == Status.FAILED:
                return Outcome.FAILED
            if now.status == Status.NEEDS_CHECK:
                return Outcome.UNKNOWN
            return Outcome.IN_PROGRESS
        return await job.run()
    return job.final
