package dev.testgen.executor;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The little JSON the protocol needs (the JDK has none): a reader producing
 * Map, List, String, Long, BigInteger, Double, Boolean and null, and a writer
 * over a StringBuilder.
 *
 * Strings are read as UTF-16 exactly as escaped, so lone surrogates survive.
 * The writer never emits a lone surrogate inside a JSON string (the Rust side
 * could not read it): {@link Writer#javaString} writes such strings as an
 * array of code units, {@link Writer#string} replaces them with U+FFFD.
 */
final class Json {
    private Json() {}

    static final class ParseException extends Exception {
        private static final long serialVersionUID = 1L;

        ParseException(String message, int offset) {
            super(message + " at offset " + offset);
        }
    }

    static Object parse(String text) throws ParseException {
        Reader reader = new Reader(text);
        reader.skipSpace();
        Object value = reader.value(0);
        reader.skipSpace();
        if (reader.pos != text.length()) {
            throw new ParseException("trailing characters", reader.pos);
        }
        return value;
    }

    private static final class Reader {
        /** Deep nesting would overflow the stack; plans are shallow. */
        private static final int MAX_DEPTH = 200;

        private final String text;
        private int pos;

        Reader(String text) {
            this.text = text;
        }

        Object value(int depth) throws ParseException {
            if (depth > MAX_DEPTH) {
                throw new ParseException("nested too deeply", pos);
            }
            if (pos >= text.length()) {
                throw new ParseException("unexpected end", pos);
            }
            char c = text.charAt(pos);
            switch (c) {
                case '{':
                    return object(depth);
                case '[':
                    return array(depth);
                case '"':
                    return string();
                case 't':
                    literal("true");
                    return Boolean.TRUE;
                case 'f':
                    literal("false");
                    return Boolean.FALSE;
                case 'n':
                    literal("null");
                    return null;
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) {
                        return number();
                    }
                    throw new ParseException("unexpected '" + c + "'", pos);
            }
        }

        private Map<String, Object> object(int depth) throws ParseException {
            Map<String, Object> map = new HashMap<>();
            pos++;
            skipSpace();
            if (peek() == '}') {
                pos++;
                return map;
            }
            while (true) {
                skipSpace();
                if (peek() != '"') {
                    throw new ParseException("expected a key", pos);
                }
                String key = string();
                skipSpace();
                expect(':');
                skipSpace();
                map.put(key, value(depth + 1));
                skipSpace();
                char c = next();
                if (c == '}') {
                    return map;
                }
                if (c != ',') {
                    throw new ParseException("expected ',' or '}'", pos - 1);
                }
            }
        }

        private List<Object> array(int depth) throws ParseException {
            List<Object> list = new ArrayList<>();
            pos++;
            skipSpace();
            if (peek() == ']') {
                pos++;
                return list;
            }
            while (true) {
                skipSpace();
                list.add(value(depth + 1));
                skipSpace();
                char c = next();
                if (c == ']') {
                    return list;
                }
                if (c != ',') {
                    throw new ParseException("expected ',' or ']'", pos - 1);
                }
            }
        }

        private String string() throws ParseException {
            pos++; // the opening quote
            StringBuilder sb = null;
            int start = pos;
            while (true) {
                if (pos >= text.length()) {
                    throw new ParseException("unterminated string", start);
                }
                char c = text.charAt(pos);
                if (c == '"') {
                    String s = sb == null ? text.substring(start, pos) : sb.append(text, start, pos).toString();
                    pos++;
                    return s;
                }
                if (c == '\\') {
                    if (sb == null) {
                        sb = new StringBuilder();
                    }
                    sb.append(text, start, pos);
                    pos++;
                    sb.append(escape());
                    start = pos;
                } else {
                    pos++;
                }
            }
        }

        private char escape() throws ParseException {
            char c = next();
            switch (c) {
                case '"': return '"';
                case '\\': return '\\';
                case '/': return '/';
                case 'b': return '\b';
                case 'f': return '\f';
                case 'n': return '\n';
                case 'r': return '\r';
                case 't': return '\t';
                case 'u':
                    if (pos + 4 > text.length()) {
                        throw new ParseException("short \\u escape", pos);
                    }
                    try {
                        char unit = (char) Integer.parseInt(text.substring(pos, pos + 4), 16);
                        pos += 4;
                        return unit;
                    } catch (NumberFormatException e) {
                        throw new ParseException("bad \\u escape", pos);
                    }
                default:
                    throw new ParseException("bad escape '\\" + c + "'", pos - 1);
            }
        }

        private Object number() throws ParseException {
            int start = pos;
            boolean integral = true;
            while (pos < text.length()) {
                char c = text.charAt(pos);
                if ((c >= '0' && c <= '9') || c == '-') {
                    pos++;
                } else if (c == '.' || c == 'e' || c == 'E' || c == '+') {
                    integral = false;
                    pos++;
                } else {
                    break;
                }
            }
            String literal = text.substring(start, pos);
            try {
                if (!integral) {
                    return Double.valueOf(literal);
                }
                if (literal.length() < 19) {
                    return Long.valueOf(literal);
                }
                BigInteger big = new BigInteger(literal);
                return big.bitLength() < 64 ? (Object) big.longValue() : big;
            } catch (NumberFormatException e) {
                throw new ParseException("bad number " + literal, start);
            }
        }

        private void literal(String word) throws ParseException {
            if (!text.startsWith(word, pos)) {
                throw new ParseException("expected " + word, pos);
            }
            pos += word.length();
        }

        void skipSpace() {
            while (pos < text.length()) {
                char c = text.charAt(pos);
                if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                    return;
                }
                pos++;
            }
        }

        private char peek() throws ParseException {
            if (pos >= text.length()) {
                throw new ParseException("unexpected end", pos);
            }
            return text.charAt(pos);
        }

        private char next() throws ParseException {
            char c = peek();
            pos++;
            return c;
        }

        private void expect(char c) throws ParseException {
            if (next() != c) {
                throw new ParseException("expected '" + c + "'", pos - 1);
            }
        }
    }

    /**
     * Writes JSON into a StringBuilder. Commas are inserted automatically:
     * {@code needComma} is true after any value inside an open container.
     */
    static final class Writer {
        final StringBuilder out;
        private boolean needComma;

        Writer(StringBuilder out) {
            this.out = out;
        }

        Writer() {
            this(new StringBuilder(256));
        }

        Writer beginObject() {
            separate();
            out.append('{');
            needComma = false;
            return this;
        }

        Writer endObject() {
            out.append('}');
            needComma = true;
            return this;
        }

        Writer beginArray() {
            separate();
            out.append('[');
            needComma = false;
            return this;
        }

        Writer endArray() {
            out.append(']');
            needComma = true;
            return this;
        }

        Writer name(String name) {
            separate();
            quote(name);
            out.append(':');
            needComma = false;
            return this;
        }

        Writer string(String value) {
            separate();
            if (value == null) {
                out.append("null");
            } else {
                quote(value);
            }
            needComma = true;
            return this;
        }

        /** A Java string exactly: a JSON string if well-formed, else its UTF-16 code units. */
        Writer javaString(String value) {
            if (isWellFormed(value)) {
                return string(value);
            }
            beginArray();
            for (int i = 0; i < value.length(); i++) {
                number(value.charAt(i));
            }
            return endArray();
        }

        Writer number(long value) {
            separate();
            out.append(value);
            needComma = true;
            return this;
        }

        Writer unsigned(long value) {
            separate();
            out.append(Long.toUnsignedString(value));
            needComma = true;
            return this;
        }

        Writer bool(boolean value) {
            separate();
            out.append(value);
            needComma = true;
            return this;
        }

        /** A value rendered earlier by another Writer. */
        Writer raw(String json) {
            separate();
            out.append(json);
            needComma = true;
            return this;
        }

        Writer field(String name, String value) {
            return name(name).string(value);
        }

        Writer field(String name, long value) {
            return name(name).number(value);
        }

        Writer field(String name, boolean value) {
            return name(name).bool(value);
        }

        private void separate() {
            if (needComma) {
                out.append(',');
            }
        }

        private void quote(String s) {
            out.append('"');
            int len = s.length();
            for (int i = 0; i < len; i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"': out.append("\\\""); break;
                    case '\\': out.append("\\\\"); break;
                    case '\n': out.append("\\n"); break;
                    case '\r': out.append("\\r"); break;
                    case '\t': out.append("\\t"); break;
                    default:
                        if (c < 0x20 || c == 0x7f || c == 0x2028 || c == 0x2029) {
                            appendUnicodeEscape(c);
                        } else if (Character.isSurrogate(c)) {
                            boolean paired = Character.isHighSurrogate(c) && i + 1 < len
                                    && Character.isLowSurrogate(s.charAt(i + 1));
                            if (paired) {
                                out.append(c).append(s.charAt(++i));
                            } else {
                                out.append('\uFFFD');
                            }
                        } else {
                            out.append(c);
                        }
                }
            }
            out.append('"');
        }

        private void appendUnicodeEscape(char c) {
            out.append("\\u");
            String hex = Integer.toHexString(c);
            for (int pad = hex.length(); pad < 4; pad++) {
                out.append('0');
            }
            out.append(hex);
        }
    }

    static boolean isWellFormed(String s) {
        int len = s.length();
        for (int i = 0; i < len; i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    return false;
                }
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }
}
