package dev.testgen.executor;

/**
 * The probe recorder that instrumented classes call (contract:
 * native/exec/PROBE_API.md). Every method records into the calling thread's
 * buffer for the current plan and returns at once when no plan runs. Probes
 * never call code under test: reference operands are recorded as runtime
 * class and identity hash only.
 */
public final class Probe {
    private Probe() {}

    private static final ThreadLocal<TraceBuffer> BUFFER = new ThreadLocal<>();

    /** The calling thread's buffer for the running plan, or null when nothing should be recorded. */
    private static TraceBuffer buffer() {
        PlanContext plan = PlanContext.current;
        if (plan == null) {
            return null;
        }
        TraceBuffer buffer = BUFFER.get();
        if (buffer == null || buffer.plan != plan) {
            buffer = plan.newTraceBuffer(Thread.currentThread());
            BUFFER.set(buffer);
        }
        return buffer.recording ? buffer : null;
    }

    private static void record(byte kind, int site, long a, long b) {
        TraceBuffer buffer = buffer();
        if (buffer != null) {
            buffer.add(kind, site, a, b);
        }
    }

    private static void recordRef(byte kind, int site, Object value) {
        TraceBuffer buffer = buffer();
        if (buffer != null) {
            buffer.add(kind, site, buffer.ref(value), 0);
        }
    }

    // Executor-side markers and switches for the plan's own thread.

    static void statement(int index) {
        record(TraceBuffer.STATEMENT, index, 0, 0);
    }

    /** Stops or resumes recording on this thread (while results are summarised). */
    static void setRecording(boolean recording) {
        PlanContext plan = PlanContext.current;
        if (plan == null) {
            return;
        }
        TraceBuffer buffer = BUFFER.get();
        if (buffer == null || buffer.plan != plan) {
            buffer = plan.newTraceBuffer(Thread.currentThread());
            BUFFER.set(buffer);
        }
        buffer.recording = recording;
    }

    // Methods.

    public static void enter(int method) {
        record(TraceBuffer.ENTER, method, 0, 0);
    }

    public static void exit(int method) {
        record(TraceBuffer.EXIT, method, 0, 0);
    }

    // Exceptions.

    public static void athrow(Object exception, int site) {
        recordRef(TraceBuffer.ATHROW, site, exception);
    }

    public static void caught(Object exception, int site) {
        recordRef(TraceBuffer.CAUGHT, site, exception);
    }

    // Branches.

    public static void ifInt(int value, int site) {
        record(TraceBuffer.IF_INT, site, value, 0);
    }

    public static void ifIntPair(int left, int right, int site) {
        record(TraceBuffer.IF_INT_PAIR, site, left, right);
    }

    public static void ifRef(Object value, int site) {
        recordRef(TraceBuffer.IF_REF, site, value);
    }

    public static void ifRefPair(Object left, Object right, int site) {
        TraceBuffer buffer = buffer();
        if (buffer != null) {
            buffer.add(TraceBuffer.IF_REF_PAIR, site, buffer.ref(left), buffer.ref(right));
        }
    }

    public static void switchKey(int key, int site) {
        record(TraceBuffer.SWITCH_KEY, site, key, 0);
    }

    // Comparisons: each returns exactly what the replaced instruction would.

    public static int lcmp(long left, long right, int site) {
        record(TraceBuffer.LCMP, site, left, right);
        return left < right ? -1 : (left == right ? 0 : 1);
    }

    public static int fcmpl(float left, float right, int site) {
        record(TraceBuffer.FCMPL, site, Float.floatToRawIntBits(left) & 0xFFFFFFFFL,
                Float.floatToRawIntBits(right) & 0xFFFFFFFFL);
        // Primitive comparisons, not Float.compare: -0.0f == 0.0f here, as in the JVM.
        return left > right ? 1 : (left == right ? 0 : -1);
    }

    public static int fcmpg(float left, float right, int site) {
        record(TraceBuffer.FCMPG, site, Float.floatToRawIntBits(left) & 0xFFFFFFFFL,
                Float.floatToRawIntBits(right) & 0xFFFFFFFFL);
        return left < right ? -1 : (left == right ? 0 : 1);
    }

    public static int dcmpl(double left, double right, int site) {
        record(TraceBuffer.DCMPL, site, Double.doubleToRawLongBits(left), Double.doubleToRawLongBits(right));
        return left > right ? 1 : (left == right ? 0 : -1);
    }

    public static int dcmpg(double left, double right, int site) {
        record(TraceBuffer.DCMPG, site, Double.doubleToRawLongBits(left), Double.doubleToRawLongBits(right));
        return left < right ? -1 : (left == right ? 0 : 1);
    }

    // Calls whose boolean result the next instruction branches on: how far
    // their arguments were from making them return true. Recorded only for
    // strings (probes call no code under test) and only when the call will
    // not throw, so an exception's events stay as they were.

    public static void stringTest(Object subject, Object argument, int test, int site) {
        if (!(subject instanceof String)) {
            return;
        }
        if (test != CallDistance.IS_EMPTY && !(argument instanceof String)) {
            return;
        }
        TraceBuffer buffer = buffer();
        if (buffer == null) {
            return;
        }
        double distance = CallDistance.ofString(test, (String) subject, (String) argument);
        if (distance >= 0) {
            buffer.add(TraceBuffer.CALL_DISTANCE, site, Double.doubleToRawLongBits(distance),
                    buffer.string((String) argument));
        }
    }

    public static void charTest(int codePoint, int test, int site) {
        TraceBuffer buffer = buffer();
        if (buffer != null) {
            buffer.add(TraceBuffer.CALL_DISTANCE, site,
                    Double.doubleToRawLongBits(CallDistance.ofChar(test, codePoint)), 0);
        }
    }

    // Results of calls that left the code under test.

    public static void returned(int site) {
        record(TraceBuffer.RETURNED, site, 0, 0);
    }

    public static void resultInt(int value, int site) {
        record(TraceBuffer.RESULT_INT, site, value, 0);
    }

    public static void resultLong(long value, int site) {
        record(TraceBuffer.RESULT_LONG, site, value, 0);
    }

    public static void resultFloat(float value, int site) {
        record(TraceBuffer.RESULT_FLOAT, site, Float.floatToRawIntBits(value) & 0xFFFFFFFFL, 0);
    }

    public static void resultDouble(double value, int site) {
        record(TraceBuffer.RESULT_DOUBLE, site, Double.doubleToRawLongBits(value), 0);
    }

    public static void resultObject(Object value, int site) {
        recordRef(TraceBuffer.RESULT_OBJECT, site, value);
    }

    // Exits: recorded, then turned into an error; the JVM never exits.

    public static void systemExit(int status) {
        throw requestExit(TraceBuffer.SYSTEM_EXIT, status);
    }

    public static void runtimeExit(Object runtime, int status) {
        if (runtime == null) {
            throw new NullPointerException();
        }
        throw requestExit(TraceBuffer.RUNTIME_EXIT, status);
    }

    public static void runtimeHalt(Object runtime, int status) {
        if (runtime == null) {
            throw new NullPointerException();
        }
        throw requestExit(TraceBuffer.RUNTIME_HALT, status);
    }

    private static ExitRequested requestExit(byte kind, int status) {
        record(kind, -1, status, 0);
        return PlanContext.exitRequested(status);
    }
}
