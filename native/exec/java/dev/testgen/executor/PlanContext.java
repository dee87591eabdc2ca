package dev.testgen.executor;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What one plan leaves behind while it runs, shared by the thread that runs
 * it, the threads it starts, the probes, the access monitor and the main
 * thread that reports it (possibly after a timeout, while the plan still
 * runs: hence the synchronisation).
 */
final class PlanContext {
    /** The plan being run, or null between plans. */
    static volatile PlanContext current;

    private static final int MAX_ACCESSES = 64;

    /** The plan's worker group: threads in it (and their children) are the plan's. */
    final ThreadGroup group;
    private final AtomicInteger traceBudget;
    private final List<TraceBuffer> buffers = new ArrayList<>();

    private volatile boolean exitRequested;
    private volatile int exitStatus;

    private final Set<String> accesses = new LinkedHashSet<>();
    private boolean accessesTruncated;

    /** Statement outcomes as JSON fragments, in order; their number is the statement running. */
    private final List<String> outcomes = new ArrayList<>();

    PlanContext(ThreadGroup group, int traceLimit) {
        this.group = group;
        this.traceBudget = new AtomicInteger(traceLimit);
    }

    // Trace.

    /** Takes up to {@code wanted} events from the plan's budget; returns how many were granted. */
    int takeTraceBudget(int wanted) {
        while (true) {
            int left = traceBudget.get();
            int granted = Math.min(left, wanted);
            if (granted == 0 || traceBudget.compareAndSet(left, left - granted)) {
                return granted;
            }
        }
    }

    TraceBuffer newTraceBuffer(Thread thread) {
        TraceBuffer buffer = new TraceBuffer(this, thread);
        synchronized (buffers) {
            buffers.add(buffer);
        }
        return buffer;
    }

    void writeTrace(Json.Writer json) {
        List<TraceBuffer> snapshot;
        synchronized (buffers) {
            snapshot = new ArrayList<>(buffers);
        }
        json.name("trace").beginArray();
        for (TraceBuffer buffer : snapshot) {
            if (!buffer.isEmpty()) {
                buffer.write(json);
            }
        }
        json.endArray();
    }

    // Exit requests.

    /**
     * Records an exit request of the current plan (if any) and returns the
     * error to throw in place of exiting.
     */
    static ExitRequested exitRequested(int status) {
        PlanContext plan = current;
        if (plan != null && !plan.exitRequested) {
            plan.exitStatus = status;
            plan.exitRequested = true;
        }
        return new ExitRequested(status);
    }

    boolean exitRequested() {
        return exitRequested;
    }

    int exitStatus() {
        return exitStatus;
    }

    // Accesses, each a rendered JSON object so that the set removes repeats.

    void access(String json) {
        synchronized (accesses) {
            if (accesses.size() < MAX_ACCESSES) {
                accesses.add(json);
            } else if (!accesses.contains(json)) {
                accessesTruncated = true;
            }
        }
    }

    void writeAccesses(Json.Writer json) {
        synchronized (accesses) {
            json.name("accesses").beginArray();
            for (String access : accesses) {
                json.raw(access);
            }
            json.endArray();
            json.field("accesses_truncated", accessesTruncated);
        }
    }

    // Statement outcomes.

    void outcome(String json) {
        synchronized (outcomes) {
            outcomes.add(json);
        }
    }

    List<String> outcomes() {
        synchronized (outcomes) {
            return new ArrayList<>(outcomes);
        }
    }
}
