package dev.testgen.executor;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TimeZone;
import java.util.concurrent.TimeUnit;

/**
 * The executor: answers one request at a time, each a line of JSON on stdin,
 * with one line of JSON on the real stdout (the protocol is in
 * native/exec/PROTOCOL.md). The code under test never sees the real stdio:
 * System.in is empty and System.out/err go to per-plan buffers.
 *
 * Arguments: the project's classpath entries, one per argument.
 *
 * When the JVM can no longer be trusted (a plan timed out, ran out of memory,
 * or left threads running) the executor answers and then halts; the Rust
 * side starts a new one for the next request.
 */
public final class Main {
    /** Set just before the executor itself ends the JVM, so the monitor lets it. */
    static volatile boolean exiting;

    /** Exit status when the executor ends itself so that it is restarted. */
    private static final int RESTART_STATUS = 3;
    private static final int OUTPUT_LIMIT = 64 * 1024;
    /** How long threads a plan started get to finish before they count as left over. */
    private static final long LEFTOVER_GRACE_MS = 200;

    private final LineReader in;
    private final OutputStream out;
    private final Object answerLock = new Object();

    private final ClassSource source;
    private final ThreadGroup plans;
    private final Capture stdout = new Capture(OUTPUT_LIMIT);
    private final Capture stderr = new Capture(OUTPUT_LIMIT);
    private PrintStream capturedOut;
    private PrintStream capturedErr;
    private final InputStream emptyIn = new ByteArrayInputStream(new byte[0]);
    /** Null when access monitoring works, else why not. */
    private final String monitorNote;

    private final Properties properties;
    private final Locale locale;
    private final Locale formatLocale;
    private final Locale displayLocale;
    private final TimeZone timeZone;
    private final String lineSeparator;
    private final boolean lineSeparatorSettable;

    /** Classes given with "define": an immutable snapshot, replaced on change. */
    private Map<String, byte[]> defined = Collections.emptyMap();
    private boolean definedChanged;
    private Worker worker;
    /** Runs the plans of the current class loader. */
    private PlanRunner runner;
    private int runnerDepth = -1;

    /** The plan in flight, for the shutdown hook (code that was not stopped from exiting). */
    private volatile InFlight inFlight;

    private static final class InFlight {
        final long id;
        final PlanRunner.Task task;
        final int statements;
        final long start;
        boolean answered;

        InFlight(long id, PlanRunner.Task task, int statements, long start) {
            this.id = id;
            this.task = task;
            this.statements = statements;
            this.start = start;
        }
    }

    public static void main(String[] args) {
        // Take the real stdio before anything can replace them.
        InputStream realIn = System.in;
        OutputStream realOut = new FileOutputStream(FileDescriptor.out);
        new Main(realIn, realOut, Arrays.asList(args)).serve();
    }

    private Main(InputStream realIn, OutputStream realOut, List<String> classpath) {
        this.in = new LineReader(realIn);
        this.out = realOut;
        this.capturedOut = new PrintStream(stdout, true, StandardCharsets.UTF_8);
        this.capturedErr = new PrintStream(stderr, true, StandardCharsets.UTF_8);
        System.setIn(emptyIn);
        System.setOut(capturedOut);
        System.setErr(capturedErr);

        this.source = new ClassSource(classpath);
        this.plans = new ThreadGroup("testgen-plans");
        String executorDir = preloadExecutorClasses();
        Access.ignoreReadsUnder(jdkAndExecutorDirs(executorDir));
        Access.ignoreReadsOfClasspath(source.entryFiles());
        this.monitorNote = installMonitor();

        this.properties = copy(System.getProperties());
        this.locale = Locale.getDefault();
        this.formatLocale = Locale.getDefault(Locale.Category.FORMAT);
        this.displayLocale = Locale.getDefault(Locale.Category.DISPLAY);
        this.timeZone = TimeZone.getDefault();
        this.lineSeparator = System.lineSeparator();
        this.lineSeparatorSettable = setLineSeparator(lineSeparator);

        Runtime.getRuntime().addShutdownHook(new Thread(new Runnable() {
            @Override
            public void run() {
                exitDuringPlan();
            }
        }, "testgen-exit"));
    }

    /**
     * Loads and initialises every executor class now, so that none is loaded
     * lazily while a plan runs (and charged to it). Returns the class
     * directory, or null if it cannot be found.
     */
    private static String preloadExecutorClasses() {
        File dir;
        try {
            dir = new File(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException | RuntimeException e) {
            return null;
        }
        File[] files = new File(dir, "dev/testgen/executor").listFiles();
        if (files == null) {
            return null;
        }
        for (File file : files) {
            String name = file.getName();
            if (name.endsWith(".class")) {
                try {
                    Class.forName("dev.testgen.executor." + name.substring(0, name.length() - 6), true,
                            Main.class.getClassLoader());
                } catch (ClassNotFoundException | LinkageError e) {
                    // Monitor on a JDK without SecurityManager: reported by installMonitor.
                }
            }
        }
        return dir.getAbsolutePath();
    }

    /**
     * Where the JDK reads its own files: its home, and wherever the files of
     * its conf directory really are (distributions link them to /etc, and
     * the JDK reads them by their real path); and the executor's classes.
     */
    private static String[] jdkAndExecutorDirs(String executorDir) {
        Set<String> dirs = new LinkedHashSet<>();
        File home = new File(System.getProperty("java.home"));
        dirs.add(home.getAbsolutePath());
        try {
            dirs.add(home.getCanonicalPath());
        } catch (IOException e) {
            // Keep the path as given.
        }
        addRealParents(new File(home, "conf"), dirs, 3);
        if (executorDir != null) {
            dirs.add(executorDir);
        }
        return dirs.toArray(new String[0]);
    }

    private static void addRealParents(File dir, Set<String> dirs, int depth) {
        File[] files = dir.listFiles();
        if (files == null || depth == 0) {
            return;
        }
        for (File file : files) {
            try {
                File real = file.getCanonicalFile();
                if (real.isDirectory()) {
                    dirs.add(real.getPath());
                    addRealParents(file, dirs, depth - 1);
                } else if (real.getParent() != null) {
                    dirs.add(real.getParent());
                }
            } catch (IOException e) {
                // A dangling link: nothing is read from it.
            }
        }
    }

    private static String installMonitor() {
        try {
            return Monitor.install();
        } catch (LinkageError e) {
            return "access monitoring unavailable: " + e;
        }
    }

    // The request loop.

    private void serve() {
        while (true) {
            String line;
            try {
                line = in.readLine();
            } catch (IOException e) {
                line = null;
            }
            if (line == null) {
                halt(0); // the Rust side went away
            }
            if (!line.isEmpty()) {
                handle(line);
            }
        }
    }

    private void handle(String line) {
        long id = 0;
        try {
            Object parsed = Json.parse(line);
            if (!(parsed instanceof Map)) {
                throw new IllegalArgumentException("a request must be a JSON object");
            }
            Map<?, ?> request = (Map<?, ?>) parsed;
            Object idValue = request.get("id");
            if (idValue instanceof Long) {
                id = (Long) idValue;
            }
            Object op = request.get("op");
            if ("run".equals(op)) {
                run(id, request);
            } else if ("define".equals(op)) {
                define(id, request);
            } else if ("verify".equals(op)) {
                verify(id, request);
            } else if ("ping".equals(op)) {
                ping(id);
            } else if ("shutdown".equals(op)) {
                send(new Json.Writer().beginObject().field("id", id).endObject().out.toString());
                halt(0);
            } else {
                throw new IllegalArgumentException("unknown op " + op);
            }
        } catch (Json.ParseException | IllegalArgumentException | ClassCastException e) {
            send(new Json.Writer().beginObject().field("id", id).field("error", String.valueOf(e.getMessage()))
                    .endObject().out.toString());
        }
    }

    private void ping(long id) {
        Json.Writer json = new Json.Writer().beginObject().field("id", id)
                .field("java_version", System.getProperty("java.version"))
                .field("vm_name", System.getProperty("java.vm.name"))
                .field("access_monitoring", monitorNote == null)
                .field("line_separator_settable", lineSeparatorSettable);
        if (monitorNote != null) {
            json.field("access_monitoring_note", monitorNote);
        }
        send(json.endObject().out.toString());
    }

    private void define(long id, Map<?, ?> request) {
        Map<String, byte[]> next = new HashMap<>(defined);
        next.putAll(classes(request.get("classes")));
        defined = Collections.unmodifiableMap(next);
        Object getters = request.get("getters_with_effects");
        if (getters instanceof Map) {
            Render.avoidGetters(namesByClass((Map<?, ?>) getters));
        }
        definedChanged = true;
        send(new Json.Writer().beginObject().field("id", id).field("defined", next.size()).endObject().out.toString());
    }

    private static Map<String, Set<String>> namesByClass(Map<?, ?> json) {
        Map<String, Set<String>> names = new HashMap<>();
        for (Map.Entry<?, ?> entry : json.entrySet()) {
            Set<String> methods = new HashSet<>();
            for (Object method : (List<?>) entry.getValue()) {
                methods.add((String) method);
            }
            names.put((String) entry.getKey(), methods);
        }
        return names;
    }

    private static Map<String, byte[]> classes(Object json) {
        Map<String, byte[]> classes = new HashMap<>();
        for (Object item : (List<?>) json) {
            Map<?, ?> entry = (Map<?, ?>) item;
            String name = ((String) entry.get("name")).replace('/', '.');
            classes.put(name, Base64.getDecoder().decode((String) entry.get("bytes")));
        }
        return classes;
    }

    /** Loads and links each class (which verifies it) without initialising it, in a throwaway loader. */
    private void verify(long id, Map<?, ?> request) {
        Map<String, byte[]> given = classes(request.get("classes"));
        Map<String, byte[]> all = new HashMap<>(defined);
        all.putAll(given);
        PlanLoader loader = new PlanLoader(source, all, Main.class.getClassLoader());
        List<String> names = new ArrayList<>();
        for (Object item : (List<?>) request.get("classes")) {
            names.add(((String) ((Map<?, ?>) item).get("name")).replace('/', '.'));
        }
        Json.Writer json = new Json.Writer().beginObject().field("id", id).name("results").beginArray();
        for (String name : names) {
            json.beginObject().field("class", name).name("result").beginObject();
            try {
                Class.forName(name, false, loader).getDeclaredMethods();
                json.field("kind", "ok");
            } catch (VerifyError e) {
                json.field("kind", "verify_error").field("message", String.valueOf(e.getMessage()));
            } catch (LinkageError e) {
                json.field("kind", "linkage_error").field("error", e.getClass().getName())
                        .field("message", String.valueOf(e.getMessage()));
            } catch (ClassNotFoundException e) {
                json.field("kind", "linkage_error").field("error", e.getClass().getName())
                        .field("message", String.valueOf(e.getMessage()));
            } catch (RuntimeException e) {
                json.field("kind", "linkage_error").field("error", e.getClass().getName())
                        .field("message", String.valueOf(e.getMessage()));
            }
            json.endObject().endObject();
        }
        send(json.endArray().endObject().out.toString());
    }

    // Running a plan.

    private void run(long id, Map<?, ?> request) {
        Map<?, ?> plan = (Map<?, ?>) request.get("plan");
        List<?> statements = (List<?>) plan.get("statements");
        long timeoutMs = Math.min(number(request, "timeout_ms", 10_000), TimeUnit.DAYS.toMillis(1));
        int traceLimit = (int) Math.min(Integer.MAX_VALUE, number(request, "trace_limit", 100_000));
        int depth = (int) Math.min(16, number(request, "summary_depth", 2));
        boolean fresh = Boolean.TRUE.equals(request.get("fresh_loader"));
        Map<?, ?> environment = (Map<?, ?>) request.get("environment");

        if (fresh || runner == null || definedChanged || depth != runnerDepth) {
            // Whether `assert` statements run is left to the JVM's -ea/-da
            // options, which the loader consults as long as nobody sets its
            // assertion status: the same rule a test JVM follows.
            PlanLoader loader = new PlanLoader(source, defined, Main.class.getClassLoader());
            runner = new PlanRunner(loader, depth);
            runnerDepth = depth;
            definedChanged = false;
            if (worker != null && !Worker.canReset()) {
                worker.retire();
                worker = null;
            }
        }
        if (worker == null || !worker.thread.isAlive()) {
            worker = new Worker(plans);
        }
        restoreGlobals();
        if (environment != null) {
            applyEnvironment(environment);
        }
        stdout.reset();
        stderr.reset();

        PlanContext context = new PlanContext(plans, traceLimit);
        PlanRunner.Task task = new PlanRunner.Task(context, runner, statements);
        InFlight flight = new InFlight(id, task, statements.size(), System.nanoTime());
        inFlight = flight;
        PlanContext.current = context;
        worker.submit(task);
        boolean finished = await(task, timeoutMs);
        if (!finished) {
            answerPlan(flight, "timed_out", Collections.<String>emptyList(), true);
            halt(RESTART_STATUS);
        }
        List<String> leftovers = leftoverThreads();
        PlanContext.current = null;
        boolean restart = task.end.equals("out_of_memory") || !leftovers.isEmpty();
        answerPlan(flight, null, leftovers, restart);
        inFlight = null;
        if (restart) {
            halt(RESTART_STATUS);
        }
    }

    private static long number(Map<?, ?> request, String key, long otherwise) {
        Object value = request.get(key);
        return value instanceof Long && (Long) value >= 0 ? (Long) value : otherwise;
    }

    private static boolean await(PlanRunner.Task task, long timeoutMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (true) {
            try {
                return task.done.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                // Nothing interrupts the main thread on purpose; keep waiting.
            }
        }
    }

    /**
     * Writes the answer for a plan. {@code interrupted} says how the running
     * statement ended if the plan did not finish: "timed_out", or
     * "exit_requested" (from the shutdown hook); null if it finished.
     */
    private void answerPlan(InFlight flight, String interrupted, List<String> leftovers, boolean restart) {
        PlanRunner.Task task = flight.task;
        PlanContext context = task.context;
        long elapsedMicros = (System.nanoTime() - flight.start) / 1000;
        Json.Writer json = new Json.Writer(new StringBuilder(1024)).beginObject().field("id", flight.id);

        json.name("status").beginObject();
        List<String> outcomes = context.outcomes();
        int running = outcomes.size();
        if (context.exitRequested()) {
            json.field("kind", "exit_requested").field("status", context.exitStatus());
        } else if ("exit_requested".equals(interrupted)) {
            json.field("kind", "exit_requested"); // the status is the JVM's exit status
        } else if ("timed_out".equals(interrupted)) {
            json.field("kind", "timed_out");
        } else if (task.end.equals("completed") || task.end.equals("out_of_memory")) {
            json.field("kind", task.end);
        } else {
            json.field("kind", task.end).field("statement", task.endStatement);
        }
        json.endObject();

        json.name("statements").beginArray();
        for (String outcome : outcomes) {
            json.raw(outcome);
        }
        for (int i = running; i < flight.statements; i++) {
            if (i == running && interrupted != null) {
                // A placeholder status for an exit seen only by the shutdown hook: see exit_statement.
                json.raw(interrupted.equals("timed_out") ? "{\"kind\":\"timed_out\"}"
                        : "{\"kind\":\"exit_requested\",\"status\":0}");
            } else {
                json.raw("{\"kind\":\"not_run\"}");
            }
        }
        json.endArray();
        if ("exit_requested".equals(interrupted) && !context.exitRequested() && running < flight.statements) {
            json.field("exit_statement", running);
        }

        json.name("stdout");
        stdout.write(json);
        json.name("stderr");
        stderr.write(json);
        context.writeAccesses(json);
        json.name("leftover_threads").beginArray();
        for (String name : leftovers) {
            json.string(name);
        }
        json.endArray();
        json.name("closed_streams").beginArray();
        for (String name : reopenClosedStreams()) {
            json.string(name);
        }
        json.endArray();
        context.writeTrace(json);
        json.field("elapsed_micros", elapsedMicros).field("restart", restart).endObject();

        synchronized (answerLock) {
            if (flight.answered) {
                return;
            }
            flight.answered = true;
            send(json.out.toString());
        }
    }

    /**
     * Threads of the plans' group that are still alive, apart from the
     * worker, after a short grace period for the ones about to end.
     */
    private List<String> leftoverThreads() {
        Thread[] threads = new Thread[plans.activeCount() + 16];
        int count = plans.enumerate(threads, true);
        List<Thread> alive = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            if (threads[i] != worker.thread && threads[i].isAlive()) {
                alive.add(threads[i]);
            }
        }
        if (alive.isEmpty()) {
            return Collections.emptyList();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LEFTOVER_GRACE_MS);
        List<String> names = new ArrayList<>();
        for (Thread thread : alive) {
            try {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                // Fall through: judge the thread as it is.
            }
            if (thread.isAlive()) {
                names.add(thread.getName());
            }
        }
        return names;
    }

    /** Called by the shutdown hook: the code under test exited without the monitor stopping it. */
    private void exitDuringPlan() {
        InFlight flight = inFlight;
        if (flight == null || exiting) {
            return;
        }
        answerPlan(flight, "exit_requested", Collections.<String>emptyList(), true);
    }

    /**
     * Which of System.out and System.err the plan closed (a printer over
     * System.out closed with it): a test that does so closes the build's
     * own output. Each closed one is replaced, so later plans print again.
     */
    private List<String> reopenClosedStreams() {
        List<String> closed = new ArrayList<>();
        if (isClosed(capturedOut)) {
            closed.add("System.out");
            capturedOut = new PrintStream(stdout, true, StandardCharsets.UTF_8);
            System.setOut(capturedOut);
        }
        if (isClosed(capturedErr)) {
            closed.add("System.err");
            capturedErr = new PrintStream(stderr, true, StandardCharsets.UTF_8);
            System.setErr(capturedErr);
        }
        return closed;
    }

    /**
     * Whether {@code stream} was closed: printing nothing to a closed
     * PrintStream sets its error flag (checkError alone does not look),
     * and the captures under ours never fail otherwise.
     */
    private static boolean isClosed(PrintStream stream) {
        stream.print("");
        return stream.checkError();
    }

    /** Puts back what the previous plan may have changed in the JVM's global state. */
    private void restoreGlobals() {
        if (System.out != capturedOut) {
            System.setOut(capturedOut);
        }
        if (System.err != capturedErr) {
            System.setErr(capturedErr);
        }
        if (System.in != emptyIn) {
            System.setIn(emptyIn);
        }
        if (!properties.equals(System.getProperties())) {
            System.setProperties(copy(properties));
        }
        if (!locale.equals(Locale.getDefault())
                || !formatLocale.equals(Locale.getDefault(Locale.Category.FORMAT))
                || !displayLocale.equals(Locale.getDefault(Locale.Category.DISPLAY))) {
            Locale.setDefault(locale);
            Locale.setDefault(Locale.Category.FORMAT, formatLocale);
            Locale.setDefault(Locale.Category.DISPLAY, displayLocale);
        }
        if (!timeZone.getID().equals(TimeZone.getDefault().getID())) {
            TimeZone.setDefault((TimeZone) timeZone.clone());
        }
        if (!lineSeparator.equals(System.lineSeparator())) {
            setLineSeparator(lineSeparator);
        }
        if (Thread.getDefaultUncaughtExceptionHandler() != null) {
            Thread.setDefaultUncaughtExceptionHandler(null);
        }
    }

    /**
     * Gives the next plan other defaults: "locale" (a BCP 47 tag, every
     * category), "time_zone" (an id), "line_separator". restoreGlobals puts
     * the JVM's own back before the plan after.
     */
    private void applyEnvironment(Map<?, ?> environment) {
        Object tag = environment.get("locale");
        if (tag instanceof String) {
            Locale.setDefault(Locale.forLanguageTag((String) tag));
        }
        Object zone = environment.get("time_zone");
        if (zone instanceof String) {
            TimeZone.setDefault(TimeZone.getTimeZone((String) zone));
        }
        Object separator = environment.get("line_separator");
        if (separator instanceof String) {
            if (!setLineSeparator((String) separator)) {
                throw new IllegalArgumentException("this JVM's line separator cannot be changed");
            }
            System.setProperty("line.separator", (String) separator);
        }
    }

    /**
     * What {@code System.lineSeparator()} returns is a field read once at
     * startup; it is written here through reflection (the executor runs
     * with java.lang opened to it). Returns false where that is refused.
     */
    private static boolean setLineSeparator(String separator) {
        try {
            java.lang.reflect.Field field = System.class.getDeclaredField("lineSeparator");
            if (java.lang.reflect.Modifier.isFinal(field.getModifiers())) {
                return false;
            }
            field.setAccessible(true);
            field.set(null, separator);
            return separator.equals(System.lineSeparator());
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    private static Properties copy(Properties properties) {
        Properties copy = new Properties();
        copy.putAll(properties);
        return copy;
    }

    // Output.

    private void send(String answer) {
        byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
        synchronized (answerLock) {
            try {
                out.write(bytes);
                out.write('\n');
                out.flush();
            } catch (IOException e) {
                halt(0); // the Rust side went away
            }
        }
    }

    private static void halt(int status) {
        exiting = true;
        Runtime.getRuntime().halt(status);
    }

    /** Reads lines (UTF-8, '\n'-terminated) from the real stdin. */
    private static final class LineReader {
        private final InputStream in;
        private final byte[] buffer = new byte[1 << 16];
        private int pos;
        private int limit;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream(1024);

        LineReader(InputStream in) {
            this.in = in;
        }

        /** The next line without its terminator, or null at the end of input. */
        String readLine() throws IOException {
            line.reset();
            while (true) {
                if (pos == limit) {
                    limit = in.read(buffer);
                    pos = 0;
                    if (limit <= 0) {
                        limit = 0;
                        return line.size() > 0 ? line.toString(StandardCharsets.UTF_8) : null;
                    }
                }
                for (int i = pos; i < limit; i++) {
                    if (buffer[i] == '\n') {
                        line.write(buffer, pos, i - pos);
                        pos = i + 1;
                        return line.toString(StandardCharsets.UTF_8);
                    }
                }
                line.write(buffer, pos, limit - pos);
                pos = limit;
            }
        }
    }
}
