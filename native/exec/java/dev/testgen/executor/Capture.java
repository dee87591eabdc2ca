package dev.testgen.executor;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * What the code under test writes to System.out or System.err during one
 * plan: the first {@code limit} bytes are kept, the rest only counted.
 */
final class Capture extends OutputStream {
    private final int limit;
    private byte[] bytes = new byte[256];
    private int size;
    private long total;

    Capture(int limit) {
        this.limit = limit;
    }

    @Override
    public synchronized void write(int b) {
        total++;
        if (size < limit) {
            ensure(size + 1);
            bytes[size++] = (byte) b;
        }
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
        if (off < 0 || len < 0 || off + len > b.length) {
            throw new IndexOutOfBoundsException();
        }
        total += len;
        int kept = Math.min(len, limit - size);
        if (kept > 0) {
            ensure(size + kept);
            System.arraycopy(b, off, bytes, size, kept);
            size += kept;
        }
    }

    private void ensure(int capacity) {
        if (capacity > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.min(limit, Math.max(capacity, bytes.length * 2)));
        }
    }

    synchronized void reset() {
        size = 0;
        total = 0;
        if (bytes.length > 4096) {
            bytes = new byte[256];
        }
    }

    /** {"text":..,"total_bytes":..,"truncated":..} */
    synchronized void write(Json.Writer json) {
        json.beginObject().field("text", new String(bytes, 0, size, StandardCharsets.UTF_8))
                .field("total_bytes", total).field("truncated", total > size).endObject();
    }
}
