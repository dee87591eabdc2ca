package dev.testgen.executor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * One thread's probe events for one plan, in parallel primitive arrays (no
 * object per event). Reference operands are packed into a long: 0 for null,
 * else (index in this buffer's class table + 1) in the high 32 bits and the
 * identity hash in the low 32.
 *
 * Capacity is taken from the plan's shared event budget in chunks, so the
 * bound holds per plan whatever the number of threads; events beyond it are
 * counted, not stored.
 */
final class TraceBuffer {
    /** Event kinds; keep in step with trace.rs. */
    static final byte STATEMENT = 0, ENTER = 1, EXIT = 2, ATHROW = 3, CAUGHT = 4, IF_INT = 5,
            IF_INT_PAIR = 6, IF_REF = 7, IF_REF_PAIR = 8, SWITCH_KEY = 9, LCMP = 10, FCMPL = 11,
            FCMPG = 12, DCMPL = 13, DCMPG = 14, RETURNED = 15, RESULT_INT = 16, RESULT_LONG = 17,
            RESULT_FLOAT = 18, RESULT_DOUBLE = 19, RESULT_OBJECT = 20, SYSTEM_EXIT = 21,
            RUNTIME_EXIT = 22, RUNTIME_HALT = 23, CALL_DISTANCE = 24;

    private static final VarHandle COUNT;

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(TraceBuffer.class, "count", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final int CHUNK = 4096;
    /** Strings a buffer keeps for call distances, and their length at most (longer ones are not kept). */
    private static final int MAX_STRINGS = 256, MAX_STRING_LENGTH = 64;
    private static final int EVENT_BYTES = 21;

    final PlanContext plan;
    final String threadName;
    /** Probes are ignored while false (while the executor summarises results). */
    boolean recording = true;

    private byte[] kinds = new byte[0];
    private int[] sites = new int[0];
    private long[] first = new long[0];
    private long[] second = new long[0];
    /** Published with release semantics, so a reader on another thread sees whole events. */
    private int count;
    /** How many events this buffer may hold before asking the plan for more budget. */
    private int limit;
    private long dropped;

    private final Map<Class<?>, Integer> classIndex = new IdentityHashMap<>();
    private String[] classNames = new String[8];
    private int classCount;

    private final Map<String, Integer> stringIndex = new java.util.HashMap<>();
    private String[] strings = new String[0];

    TraceBuffer(PlanContext plan, Thread thread) {
        this.plan = plan;
        this.threadName = thread.getName();
    }

    void add(byte kind, int site, long a, long b) {
        int n = count;
        if (n == kinds.length && !grow()) {
            dropped++;
            return;
        }
        kinds[n] = kind;
        sites[n] = site;
        first[n] = a;
        second[n] = b;
        COUNT.setRelease(this, n + 1);
    }

    private boolean grow() {
        int n = count;
        if (n == limit) {
            int granted = plan.takeTraceBudget(CHUNK);
            if (granted == 0) {
                return false;
            }
            limit += granted;
        }
        // Arrays grow geometrically within the budget: most plans record few events.
        if (n == kinds.length) {
            int capacity = Math.min(limit, Math.max(64, kinds.length * 2));
            kinds = Arrays.copyOf(kinds, capacity);
            sites = Arrays.copyOf(sites, capacity);
            first = Arrays.copyOf(first, capacity);
            second = Arrays.copyOf(second, capacity);
        }
        return true;
    }

    long ref(Object o) {
        if (o == null) {
            return 0;
        }
        Class<?> cls = o.getClass();
        Integer index = classIndex.get(cls);
        if (index == null) {
            index = classCount;
            if (classCount == classNames.length) {
                classNames = Arrays.copyOf(classNames, classCount * 2);
            }
            classNames[classCount++] = cls.getName();
            classIndex.put(cls, index);
        }
        return ((long) (index + 1) << 32) | (System.identityHashCode(o) & 0xFFFFFFFFL);
    }

    /**
     * `text`'s index in this buffer's string table plus one, or 0 for none
     * (null, too long, or the table is full): the values a branch compared
     * its input against, which search then tries.
     */
    long string(String text) {
        if (text == null || text.length() > MAX_STRING_LENGTH) {
            return 0;
        }
        Integer index = stringIndex.get(text);
        if (index == null) {
            if (strings.length == MAX_STRINGS) {
                return 0;
            }
            index = strings.length;
            strings = Arrays.copyOf(strings, index + 1);
            strings[index] = text;
            stringIndex.put(text, index);
        }
        return index + 1;
    }

    boolean isEmpty() {
        return count == 0 && dropped == 0;
    }

    /**
     * Writes {"thread":..,"events":base64,"classes":[..],"dropped_events":n}.
     * May run while the owning thread still records (after a timeout): it
     * then sees a prefix of whole events.
     */
    void write(Json.Writer json) {
        int n = (int) COUNT.getAcquire(this);
        byte[] kinds = this.kinds;
        int[] sites = this.sites;
        long[] first = this.first;
        long[] second = this.second;
        n = Math.min(n, Math.min(Math.min(kinds.length, sites.length), Math.min(first.length, second.length)));
        ByteBuffer bytes = ByteBuffer.allocate(n * EVENT_BYTES);
        for (int i = 0; i < n; i++) {
            bytes.put(kinds[i]).putInt(sites[i]).putLong(first[i]).putLong(second[i]);
        }
        json.beginObject().field("thread", threadName);
        json.field("events", Base64.getEncoder().encodeToString(bytes.array()));
        json.name("classes").beginArray();
        String[] names = classNames;
        int classes = Math.min(classCount, names.length);
        for (int i = 0; i < classes && names[i] != null; i++) {
            json.string(names[i]);
        }
        json.endArray();
        json.name("strings").beginArray();
        for (String text : this.strings) {
            json.string(text);
        }
        json.endArray().field("dropped_events", dropped).endObject();
    }
}
