"""Price calculation for the web shop: list prices, discounts, tax and rounding.

All money is handled as Decimal in cents-precise units so that totals shown to customers
match what the payment provider charges.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from enum import Enum

CENT = Decimal("0.01")
DEFAULT_TAX_RATE = Decimal("0.21")


class DiscountKind(Enum):
    PERCENT = "percent"
    FIXED = "fixed"


@dataclass(frozen=True)
class Discount:
    """A promotion applied to one line; FIXED amounts never push a price below zero."""

    kind: DiscountKind
    value: Decimal
    code: str = ""

    def apply(self, amount: Decimal) -> Decimal:
        if self.kind is DiscountKind.PERCENT:
            return amount * (Decimal(1) - self.value / Decimal(100))
        return max(Decimal(0), amount - self.value)


@dataclass
class LineItem:
    sku: str
    unit_price: Decimal
    quantity: int = 1
    discounts: list[Discount] = field(default_factory=list)

    def subtotal(self) -> Decimal:
        amount = self.unit_price * self.quantity
        for discount in self.discounts:
            amount = discount.apply(amount)
        return round_money(amount)


def round_money(amount: Decimal) -> Decimal:
    """Round half up to the cent, the rule our payment provider uses."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def add_tax(amount: Decimal, rate: Decimal = DEFAULT_TAX_RATE) -> Decimal:
    return round_money(amount * (Decimal(1) + rate))


def bulk_discount(quantity: int) -> Discount | None:
    """Ten percent off from 10 units, fifteen from 50: the tiers sales agreed on."""
    if quantity >= 50:
        return Discount(DiscountKind.PERCENT, Decimal(15), "BULK50")
    if quantity >= 10:
        return Discount(DiscountKind.PERCENT, Decimal(10), "BULK10")
    return None


class Cart:
    """A customer's cart; prices are recomputed on every call so promotions stay current."""

    def __init__(self, tax_rate: Decimal = DEFAULT_TAX_RATE) -> None:
        self.tax_rate = tax_rate
        self.items: dict[str, LineItem] = {}

    def add(self, sku: str, unit_price: Decimal, quantity: int = 1) -> None:
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        item = self.items.get(sku)
        if item is None:
            self.items[sku] = LineItem(sku, unit_price, quantity)
        else:
            item.quantity += quantity

    def remove(self, sku: str) -> None:
        self.items.pop(sku, None)

    def net_total(self) -> Decimal:
        total = Decimal(0)
        for item in self.items.values():
            tier = bulk_discount(item.quantity)
            priced = LineItem(item.sku, item.unit_price, item.quantity, list(item.discounts))
            if tier is not None:
                priced.discounts.append(tier)
            total += priced.subtotal()
        return round_money(total)

    def gross_total(self) -> Decimal:
        return add_tax(self.net_total(), self.tax_rate)
