package io.seckill.entry;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * One remote address's share of the admission entry's calls: at most {@code perSecond} a second
 * ({@code seckill.admission.entry-limits.max-calls-per-address-per-second}; 0 = no cap). A call over it is refused
 * 429 before its token is verified, so a client flooding the entry costs a counter, not a signature check each.
 * Behind a proxy that does not keep the client's address every call comes from the proxy: leave it 0 there and cap
 * per client at the proxy. The windows are kept for at most {@link #MAX_TRACKED} addresses (past it they start again).
 */
final class AddressShare {

    static final int MAX_TRACKED = 100_000;

    private final int perSecond;
    private final LongSupplier nanos;
    private final ConcurrentHashMap<InetAddress, Window> windows = new ConcurrentHashMap<>();

    /** One address's calls in one second. */
    private record Window(long second, int calls) {}

    AddressShare(int perSecond, LongSupplier nanos) {
        if (perSecond < 0) {
            throw new IllegalArgumentException(
                    "seckill.admission.entry-limits.max-calls-per-address-per-second: must be 0 (no cap) or positive");
        }
        this.perSecond = perSecond;
        this.nanos = nanos;
    }

    /** Takes one of this second's calls of {@code address}; false when its share is used up. */
    boolean tryAcquire(InetAddress address) {
        if (perSecond == 0) {
            return true;
        }
        if (windows.size() >= MAX_TRACKED && !windows.containsKey(address)) {
            windows.clear();
        }
        long second = nanos.getAsLong() / 1_000_000_000L;
        Window w = windows.compute(
                address,
                (a, was) -> was == null || was.second() != second
                        ? new Window(second, 1)
                        : new Window(second, was.calls() + 1));
        return w.calls() <= perSecond;
    }

    /** Addresses whose window is kept now. */
    int tracked() {
        return windows.size();
    }
}
