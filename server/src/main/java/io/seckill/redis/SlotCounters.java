package io.seckill.redis;

import java.util.List;

/**
 * One slot's counters read in one script call ({@code read_counters.lua}: a sum of keys read one by one
 * can straddle a reservation), each as Redis holds it: the decimal text, or {@code ""} where the key or
 * field is missing - the form the recalibration script takes its expected values in.
 *
 * @param stock units Redis may still admit
 * @param initial the slot's units when warmed, plus what was added to it since
 * @param openReserved reservations admitted and not yet decided
 * @param committed reservations turned into orders
 * @param transferredOut units given up to another bucket and not landed there yet
 */
public record SlotCounters(String stock, String initial, String openReserved, String committed, long transferredOut) {

    private static final LuaScript READ = LuaScript.load("read_counters");

    public static SlotCounters read(Redis redis, SkuSlot slot) {
        List<Object> c = READ.run(redis, new String[] {slot.stock(), slot.counter(), slot.transfers()});
        return new SlotCounters(text(c, 0), text(c, 1), text(c, 2), text(c, 3), number(text(c, 4)));
    }

    /** The slot was warmed: its stock and its initial count are there. */
    public boolean warmed() {
        return !stock.isEmpty() && !initial.isEmpty();
    }

    public long stockUnits() {
        return number(stock);
    }

    public long initialUnits() {
        return number(initial);
    }

    public long openReservedUnits() {
        return number(openReserved);
    }

    public long committedUnits() {
        return number(committed);
    }

    /** {@code stock=... initial=... open_reserved=... committed=...}, for the audit trail. */
    public String describe() {
        return "stock=" + stock + " initial=" + initial + " open_reserved=" + openReserved + " committed=" + committed;
    }

    private static String text(List<Object> reply, int i) {
        String v = ScriptReply.text(reply, i);
        return v == null ? "" : v;
    }

    private static long number(String v) {
        return v.isEmpty() ? 0 : Long.parseLong(v);
    }
}
