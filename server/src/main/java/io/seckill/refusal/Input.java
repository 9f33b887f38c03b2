package io.seckill.refusal;

/**
 * Free text a request brings in (a sale's name, an operator's reason): refused with the field named
 * unless it is present, within its length and free of control characters - PostgreSQL cannot store a
 * NUL in text, and a log line or audit row with terminal escapes in it misleads whoever reads it.
 */
public final class Input {

    private Input() {}

    /** {@code value} when it is 1..{@code maxLength} characters of printable text (tab and line breaks allowed). */
    public static String text(String field, String value, int maxLength) {
        if (value == null || value.isBlank()) {
            throw Refusal.invalid(field, "is required");
        }
        if (value.length() > maxLength) {
            throw Refusal.invalid(field, "must be at most " + maxLength + " characters, got " + value.length());
        }
        int bad = firstControl(value);
        if (bad >= 0) {
            throw Refusal.invalid(
                    field,
                    "must not contain control characters (U+%04X at %d)".formatted((int) value.charAt(bad), bad));
        }
        return value;
    }

    /** Where the first control character other than tab, CR and LF stands, or -1. */
    public static int firstControl(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c) && c != '\t' && c != '\n' && c != '\r') {
                return i;
            }
        }
        return -1;
    }
}
