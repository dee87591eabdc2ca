package dev.testgen.executor;

import java.lang.reflect.Field;

/**
 * The thread that runs plans. It lives in the plans' thread group; threads
 * it starts inherit the group, which is how the executor finds them
 * afterwards.
 *
 * Thread state must not carry over from one class loader to the next
 * (thread-locals would also keep old loaders alive). Starting a thread costs
 * about 0.1 ms, as much as the rest of a small plan, so the worker is
 * reused and its thread-local maps are dropped when the loader changes.
 * That needs {@code --add-opens java.base/java.lang=ALL-UNNAMED}; without
 * it, {@link #canReset()} is false and the executor starts a new worker for
 * every new loader instead.
 */
final class Worker implements Runnable {
    private static final Field[] THREAD_LOCAL_MAPS = threadLocalMaps();

    final Thread thread;
    private PlanRunner.Task next;
    private boolean retired;
    /** The runner (and so the class loader) of the last task. */
    private PlanRunner current;

    Worker(ThreadGroup group) {
        this.thread = new Thread(group, this, "testgen-plan");
        thread.start();
    }

    /** Whether one worker may serve several class loaders. */
    static boolean canReset() {
        return THREAD_LOCAL_MAPS != null;
    }

    private static Field[] threadLocalMaps() {
        try {
            Field[] fields = {
                Thread.class.getDeclaredField("threadLocals"),
                Thread.class.getDeclaredField("inheritableThreadLocals"),
            };
            for (Field field : fields) {
                field.setAccessible(true);
            }
            return fields;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // not opened to us, or a JDK that keeps them elsewhere
        }
    }

    synchronized void submit(PlanRunner.Task task) {
        next = task;
        notifyAll();
    }

    /** Ends the (idle) thread and waits for it, so it is not taken for a leftover. */
    void retire() {
        synchronized (this) {
            retired = true;
            notifyAll();
        }
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void run() {
        while (true) {
            PlanRunner.Task task;
            synchronized (this) {
                while (next == null && !retired) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        // Code under test may interrupt its own thread; keep waiting for work.
                    }
                }
                if (next == null) {
                    return;
                }
                task = next;
                next = null;
            }
            prepare(task.runner);
            try {
                task.runner.run(task);
            } finally {
                task.done.countDown();
            }
        }
    }

    /** Undoes what the previous plan may have changed about this thread. */
    private void prepare(PlanRunner runner) {
        Thread.interrupted();
        thread.setName("testgen-plan");
        thread.setPriority(Thread.NORM_PRIORITY);
        if (runner != current) {
            if (current != null) {
                resetThreadLocals();
            }
            thread.setUncaughtExceptionHandler(null);
            thread.setContextClassLoader(runner.loader());
            current = runner;
        }
    }

    private void resetThreadLocals() {
        try {
            for (Field field : THREAD_LOCAL_MAPS) {
                field.set(thread, null);
            }
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("thread-locals were opened at start", e);
        }
    }
}
