package dev.testgen.executor;

/**
 * How far the arguments of a JDK call whose boolean result decides a branch
 * were from making it return true: 0 when it did, else a positive distance
 * that shrinks as the arguments come closer (search follows it). Strings are
 * compared character by character, left-aligned, as EvoSuite does:
 * the difference in length plus, per aligned pair, |a - b| / (|a - b| + 1).
 * Only JDK code runs here; the caller checks that operands are strings.
 */
final class CallDistance {
    private CallDistance() {}

    /** Codes of the string tests; keep in step with the `StringTest` enum of native/probes. */
    static final int EQUALS = 0, EQUALS_IGNORE_CASE = 1, STARTS_WITH = 2, ENDS_WITH = 3, CONTAINS = 4,
            IS_EMPTY = 5;

    /** Codes of the `Character` predicates; keep in step with the `CharTest` enum of native/probes. */
    static final int IS_DIGIT = 0, IS_LETTER = 1, IS_LETTER_OR_DIGIT = 2, IS_WHITESPACE = 3,
            IS_UPPER_CASE = 4, IS_LOWER_CASE = 5, IS_ALPHABETIC = 6, IS_SPACE_CHAR = 7;

    /** Longer strings are measured on their first this many characters (bounded work per call). */
    private static final int MAX_MEASURED = 256;
    /** How far from a code point to look for one a predicate holds for. */
    private static final int CHAR_REACH = 256;

    /** The distance of `test` on `subject` and `argument` (null for `isEmpty`), both strings. */
    static double ofString(int test, String subject, String argument) {
        switch (test) {
            case EQUALS:
                return subject.equals(argument) ? 0 : 1 + aligned(subject, argument);
            case EQUALS_IGNORE_CASE:
                return subject.equalsIgnoreCase(argument)
                        ? 0
                        : 1 + aligned(subject.toLowerCase(java.util.Locale.ROOT), argument.toLowerCase(java.util.Locale.ROOT));
            case STARTS_WITH:
                return subject.startsWith(argument)
                        ? 0
                        : 1 + aligned(subject.substring(0, Math.min(subject.length(), argument.length())), argument);
            case ENDS_WITH:
                return subject.endsWith(argument)
                        ? 0
                        : 1 + aligned(subject.substring(Math.max(0, subject.length() - argument.length())), argument);
            case CONTAINS:
                return subject.contains(argument) ? 0 : 1 + closestWindow(subject, argument);
            case IS_EMPTY:
                return subject.length();
            default:
                return -1;
        }
    }

    /** The distance of a `Character` predicate on `codePoint`: how many code points away the nearest one it holds for is. */
    static double ofChar(int test, int codePoint) {
        for (int step = 0; step <= CHAR_REACH; step++) {
            if (holds(test, codePoint - step) || holds(test, codePoint + step)) {
                return step;
            }
        }
        return CHAR_REACH + 1;
    }

    private static boolean holds(int test, int codePoint) {
        if (codePoint < 0 || codePoint > Character.MAX_CODE_POINT) {
            return false;
        }
        switch (test) {
            case IS_DIGIT: return Character.isDigit(codePoint);
            case IS_LETTER: return Character.isLetter(codePoint);
            case IS_LETTER_OR_DIGIT: return Character.isLetterOrDigit(codePoint);
            case IS_WHITESPACE: return Character.isWhitespace(codePoint);
            case IS_UPPER_CASE: return Character.isUpperCase(codePoint);
            case IS_LOWER_CASE: return Character.isLowerCase(codePoint);
            case IS_ALPHABETIC: return Character.isAlphabetic(codePoint);
            case IS_SPACE_CHAR: return Character.isSpaceChar(codePoint);
            default: return false;
        }
    }

    /** Left-aligned distance: length difference plus each aligned pair's normalised difference. */
    private static double aligned(String a, String b) {
        int n = Math.min(Math.min(a.length(), b.length()), MAX_MEASURED);
        double distance = Math.abs(a.length() - b.length());
        for (int i = 0; i < n; i++) {
            int difference = Math.abs(a.charAt(i) - b.charAt(i));
            distance += difference / (difference + 1.0);
        }
        return distance;
    }

    /** The smallest aligned distance of `needle` to a window of `haystack` (to all of it when shorter). */
    private static double closestWindow(String haystack, String needle) {
        if (haystack.length() <= needle.length()) {
            return aligned(haystack, needle);
        }
        int windows = Math.min(haystack.length() - needle.length(), MAX_MEASURED);
        double best = Double.MAX_VALUE;
        for (int start = 0; start <= windows; start++) {
            best = Math.min(best, aligned(haystack.substring(start, start + needle.length()), needle));
        }
        return best;
    }
}
