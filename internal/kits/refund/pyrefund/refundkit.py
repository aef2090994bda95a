"""refundkit: the refund problem's API for Python answers.

The same operations as the Go package refundkit, carried to the grader's
world and answered there: the database, the payment provider, the virtual
clock and the faults are the grader's own. Every function that waits is a
coroutine: await it. asyncio.sleep waits on the grader's clock.

Your answer defines:

    async def refund_money(request_id: str) -> Outcome

It returns an Outcome that matches the record's status when it returns, or
raises. An exception that says the code is wrong (AttributeError,
NameError, TypeError, ...) is reported as a crash of your code, any other
as the error your function returned.
"""
from dataclasses import dataclass
from enum import StrEnum


class Status(StrEnum):
    """The state of a refund record in the database."""
    PENDING = "pending"
    PROCESSING = "processing"
    DONE = "done"
    FAILED = "failed"
    NEEDS_CHECK = "needs_check"  # outcome unknown: a reconciler must look at the provider


class Outcome(StrEnum):
    """What refund_money reports: done with done, failed with failed,
    unknown with needs_check, in_progress when another worker holds the claim."""
    DONE = "done"
    FAILED = "failed"
    UNKNOWN = "unknown"
    IN_PROGRESS = "in_progress"


@dataclass(frozen=True)
class Record:
    """A refund request as stored (a copy: changing it changes nothing).
    Times are seconds on the grader's clock (time.time()); lease_until is
    None when the claim never expires."""
    request_id: str
    charge_id: str
    amount: int  # in the smallest currency unit (cents)
    currency: str
    status: Status
    owner: str
    lease_until: float | None
    reason: str
    updated_at: float


@dataclass(frozen=True)
class ProviderRefund:
    """A refund as the provider holds it. replayed: this success was saved
    under the request's idempotency key and returned for a repeat."""
    id: str
    charge: str
    amount: int
    reference: str
    status: str  # "succeeded"
    created: float
    replayed: bool


class RefundKitError(Exception):
    """Every error the API raises."""


class ConnectionFailed(RefundKitError):
    """The request never left: nothing happened at the provider, resending is safe."""

    def __init__(self, message="", cause=""):
        super().__init__(message)
        self.cause = cause


class ProviderTimeout(RefundKitError):
    """The request was sent and no reply came back: the refund may or may
    not have happened. after: seconds waited."""

    def __init__(self, message="", after=0.0, cause=""):
        super().__init__(message)
        self.after = after
        self.cause = cause


class APIError(RefundKitError):
    """An HTTP error answer from the provider. retry_after: seconds from a
    Retry-After header (0 when none); replayed: a saved answer replayed for
    a repeated idempotency key."""

    def __init__(self, message="", status=0, type="", code="", param="", retry_after=0.0, replayed=False):
        super().__init__(message)
        self.status = status
        self.type = type
        self.code = code
        self.param = param
        self.retry_after = retry_after
        self.replayed = replayed


class AlreadyRefunded(APIError):
    """400 charge_already_refunded."""


class IdempotencyKeyReused(APIError):
    """400 idempotency_error: the same key with other parameters."""


class IdempotencyKeyInUse(APIError):
    """409: a request with this key is still running; it may yet succeed."""


class RateLimited(APIError):
    """429."""


class InvalidRequest(APIError):
    """Any other 400: resending cannot help."""


class ResourceMissing(APIError):
    """404 resource_missing: no such charge."""


class ServerError(APIError):
    """5xx: the provider may have run part of the request."""


def _exception(kind, message, fields):
    cls = globals().get(kind)
    if isinstance(cls, type) and issubclass(cls, RefundKitError) and cls is not RefundKitError:
        return cls(message, **fields)
    return RefundKitError(message)


async def get_record(request_id: str) -> Record | None:
    """The refund record, None when there is none with this id."""
    d = await _call("get_record", request_id=request_id)
    return None if d is None else Record(**d)


async def claim(request_id: str, lease: float) -> bool:
    """Atomically moves the record to processing, owned by this worker, if
    it is pending, failed or needs_check, or processing with an expired
    lease; True if the claim was taken. The claim expires after lease
    seconds; lease <= 0 never expires."""
    return await _call("claim", request_id=request_id, lease=float(lease))


async def mark_processing(request_id: str) -> None:
    """Sets the status to processing unconditionally: not a claim."""
    await _call("mark_processing", request_id=request_id)


async def mark_done(request_id: str) -> None:
    """Sets the status to done."""
    await _call("mark_done", request_id=request_id)


async def mark_failed(request_id: str, reason: str) -> None:
    """Sets the status to failed: the refund definitely did not happen."""
    await _call("mark_failed", request_id=request_id, reason=str(reason))


async def mark_needs_check(request_id: str, reason: str) -> None:
    """Sets the status to needs_check: the outcome is unknown."""
    await _call("mark_needs_check", request_id=request_id, reason=str(reason))


async def create_refund(charge: str, amount: int, idempotency_key: str = "", reference: str = "") -> ProviderRefund:
    """Asks the provider to refund amount of charge. An empty
    idempotency_key means the client library makes a fresh one for this
    call, so a retry from your own loop is a brand-new request. reference
    is stored with the refund and list_refunds returns it."""
    d = await _call("create_refund", charge=charge, amount=int(amount), idempotency_key=idempotency_key, reference=reference)
    return ProviderRefund(**d)


async def list_refunds(charge: str) -> list[ProviderRefund]:
    """The refunds the provider holds for charge, oldest first."""
    return [ProviderRefund(**d) for d in await _call("list_refunds", charge=charge)]


def log(message: str, *args) -> None:
    """Writes a line to the run's log (message % args, as logging does): it
    appears in the grader's trace at the time it was written."""
    _call_later("log", line=(str(message) % args) if args else str(message))
