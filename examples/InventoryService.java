package com.example.inventory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps stock levels per SKU and hands out short-lived "soft holds".
 *
 * A soft hold reserves units for a checkout without decrementing the on-hand count;
 * the hold expires on its own if the customer never pays, so abandoned carts do not
 * lock stock forever.
 */
public class InventoryService {

    /** How long a soft hold lives before it is released automatically. */
    private static final Duration HOLD_TTL = Duration.ofMinutes(15);

    private static final String AUDIT_TEMPLATE = "{\"event\": \"%s\", \"sku\": \"%s\", \"qty\": %d}";

    private final Map<Sku, Integer> onHand = new ConcurrentHashMap<>();
    private final Map<String, Hold> holds = new ConcurrentHashMap<>();
    private final Clock clock;

    /** A unit of stock, identified by its catalogue code. */
    public record Sku(String code) {
        public Sku {
            Objects.requireNonNull(code, "code");
            if (code.isBlank()) {
                throw new IllegalArgumentException("SKU code must not be blank");
            }
        }
    }

    /** A reservation of {@code quantity} units that lapses at {@code expiresAt}. */
    public record Hold(String id, Sku sku, int quantity, Instant expiresAt) {
        boolean isExpired(Instant now) {
            return now.isAfter(expiresAt);
        }
    }

    public InventoryService(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Adds received units to the shelf count. */
    public void receive(Sku sku, int quantity) {
        if (quantity <= 0) {
            throw new IllegalArgumentException("quantity must be positive");
        }
        onHand.merge(sku, quantity, Integer::sum);
        audit("receive", sku, quantity);
    }

    /**
     * Places a soft hold on {@code quantity} units of {@code sku}.
     *
     * The hold only succeeds when the units that are on hand and not already held cover the
     * request. Nothing is subtracted from {@code onHand} until {@link #commit(String)}.
     *
     * @return the hold, or empty when there is not enough free stock
     */
    public synchronized Optional<Hold> reserveStock(Sku sku, int quantity) {
        if (quantity <= 0) {
            throw new IllegalArgumentException("quantity must be positive");
        }
        purgeExpired();
        int free = available(sku);
        if (free < quantity) {
            audit("reserve-rejected", sku, quantity);
            return Optional.empty();
        }
        Hold hold = new Hold(UUID.randomUUID().toString(), sku, quantity, clock.instant().plus(HOLD_TTL));
        holds.put(hold.id(), hold);
        audit("reserve", sku, quantity);
        return Optional.of(hold);
    }

    /** Gives the held units back to the free pool, e.g. when the cart is emptied. */
    public synchronized boolean releaseHold(String holdId) {
        Hold removed = holds.remove(holdId);
        if (removed == null) {
            return false;
        }
        audit("release", removed.sku(), removed.quantity());
        return true;
    }

    /** Turns a hold into a real decrement once the payment has been captured. */
    public synchronized void commit(String holdId) {
        Hold hold = holds.remove(holdId);
        if (hold == null || hold.isExpired(clock.instant())) {
            throw new IllegalStateException("hold " + holdId + " is unknown or expired");
        }
        onHand.computeIfPresent(hold.sku(), (k, v) -> v - hold.quantity());
        audit("commit", hold.sku(), hold.quantity());
    }

    /** Units on hand minus units under live holds. */
    public int available(Sku sku) {
        int held = holds.values().stream()
                .filter(h -> h.sku().equals(sku))
                .mapToInt(Hold::quantity)
                .sum();
        return onHand.getOrDefault(sku, 0) - held;
    }

    private void purgeExpired() {
        Instant now = clock.instant();
        holds.values().removeIf(h -> h.isExpired(now));
    }

    private void audit(String event, Sku sku, int quantity) {
        // Audit lines are JSON so the log shipper can index them; braces are literal here.
        String line = String.format(AUDIT_TEMPLATE, event, sku.code(), quantity);
        System.getLogger("inventory.audit").log(System.Logger.Level.INFO, line);
    }
}
