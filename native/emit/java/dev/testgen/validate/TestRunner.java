package dev.testgen.validate;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TimeZone;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs the methods of one generated test class with the JUnit Platform launcher the way a build
 * may run them but testgen's ordinary validation does not: one after another in a given order on
 * one class loader (static state carries over from test to test, as in a build's test JVM), then
 * each alone on a class loader of its own (no test before it). Writes one line per method and
 * phase to a results file.
 *
 * <pre>
 * TestRunner defaults
 *     prints this JVM's default locale, time zone and line separator
 * TestRunner run RESULTS CLASS METHODS CLASSPATH
 *     METHODS: the test methods' names, comma-separated, in the order to run them
 *     CLASSPATH: entries (path-separator separated) holding the test class, the code under
 *     test and its dependencies; JUnit itself comes from this JVM's class path
 * </pre>
 *
 * A result line is {@code PHASE TAB METHOD TAB pass} or {@code PHASE TAB METHOD TAB fail TAB KIND
 * TAB MESSAGE}, PHASE {@code shared} or {@code alone}, KIND {@code assert_statement} when the
 * failure is an {@code AssertionError} thrown by an {@code assert} statement of the code under
 * test, else {@code other}.
 */
public final class TestRunner {
    private TestRunner() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("defaults")) {
            PrintStream out = System.out;
            out.println("locale\t" + Locale.getDefault().toLanguageTag());
            out.println("time_zone\t" + TimeZone.getDefault().getID());
            out.println("line_separator\t" + escape(System.lineSeparator()));
            return;
        }
        if (args.length != 5 || !args[0].equals("run")) {
            System.err.println("usage: TestRunner defaults | TestRunner run RESULTS CLASS METHODS CLASSPATH");
            System.exit(2);
        }
        String className = args[2];
        String[] methods = args[3].isEmpty() ? new String[0] : args[3].split(",");
        URL[] urls = urls(args[4]);
        Launcher launcher = LauncherFactory.create();
        try (PrintWriter results = new PrintWriter(
                Files.newBufferedWriter(Paths.get(args[1]), StandardCharsets.UTF_8))) {
            try (URLClassLoader shared = new URLClassLoader(urls, TestRunner.class.getClassLoader())) {
                for (String method : methods) {
                    results.println("shared\t" + method + "\t" + run(launcher, shared, className, method));
                    results.flush();
                }
            }
            for (String method : methods) {
                try (URLClassLoader alone = new URLClassLoader(urls, TestRunner.class.getClassLoader())) {
                    results.println("alone\t" + method + "\t" + run(launcher, alone, className, method));
                    results.flush();
                }
            }
        }
    }

    private static URL[] urls(String classpath) throws IOException {
        List<URL> urls = new ArrayList<>();
        for (String entry : classpath.split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        return urls.toArray(new URL[0]);
    }

    /** Runs one test method of the class as {@code loader} defines it; its result line's tail. */
    private static String run(Launcher launcher, ClassLoader loader, String className, String methodName) {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            Class<?> testClass = Class.forName(className, false, loader);
            Method method = find(testClass, methodName);
            if (method == null) {
                return "fail\tother\tno method " + methodName;
            }
            LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                    .selectors(DiscoverySelectors.selectMethod(testClass, method))
                    .build();
            Outcome outcome = new Outcome();
            launcher.execute(request, outcome);
            return outcome.line();
        } catch (ClassNotFoundException | LinkageError e) {
            return "fail\tother\t" + oneLine(e.toString());
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    private static Method find(Class<?> testClass, String name) {
        for (Method method : testClass.getDeclaredMethods()) {
            if (method.getName().equals(name) && method.getParameterCount() == 0) {
                return method;
            }
        }
        return null;
    }

    /** What the launcher reported for the one selected test, and any failing container. */
    private static final class Outcome implements TestExecutionListener {
        private TestExecutionResult test;
        private TestExecutionResult container;

        @Override
        public void executionFinished(TestIdentifier identifier, TestExecutionResult result) {
            if (identifier.isTest()) {
                test = result;
            } else if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL && container == null) {
                container = result;
            }
        }

        String line() {
            TestExecutionResult result = test != null ? test : container;
            if (result == null) {
                return "fail\tother\tnot run";
            }
            if (result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) {
                return container == null ? "pass" : failure(container);
            }
            return failure(result);
        }

        private static String failure(TestExecutionResult result) {
            Throwable thrown = result.getThrowable().orElse(null);
            if (thrown == null) {
                return "fail\tother\t" + result.getStatus();
            }
            String kind = fromAssertStatement(thrown) ? "assert_statement" : "other";
            return "fail\t" + kind + "\t" + oneLine(thrown.toString());
        }
    }

    /**
     * Whether {@code thrown} or one of its causes is an {@code AssertionError} raised by an
     * {@code assert} statement: exactly that class, thrown outside JUnit's own assertion code
     * (JUnit 4's {@code assertEquals} throws a plain {@code AssertionError} too).
     */
    private static boolean fromAssertStatement(Throwable thrown) {
        for (Throwable t = thrown; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getClass() == AssertionError.class) {
                StackTraceElement[] stack = t.getStackTrace();
                String origin = stack.length > 0 ? stack[0].getClassName() : "";
                if (!origin.startsWith("org.junit.") && !origin.startsWith("junit.")
                        && !origin.startsWith("org.opentest4j.")) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String oneLine(String text) {
        return text.replace('\t', ' ').replace('\r', ' ').replace('\n', ' ');
    }

    private static String escape(String text) {
        return text.replace("\\", "\\\\").replace("\r", "\\r").replace("\n", "\\n");
    }
}
