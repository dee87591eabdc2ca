package dev.testgen.common;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.Consumer;

/**
 * Runs the testgen binary for a build plugin: its stdout and stderr go to the build's log line by
 * line as they come, and a non-zero exit is a {@link FailedException} whose message ends with the
 * last lines of stderr, so that the build's failure shows testgen's own reason.
 */
public final class TestgenProcess {
    /** How many of the last stderr lines a failure message repeats. */
    private static final int KEPT_ERROR_LINES = 40;

    /** The binary exited with a non-zero status; the message says which, and what it printed last. */
    public static final class FailedException extends Exception {
        private static final long serialVersionUID = 1L;

        FailedException(String message) {
            super(message);
        }
    }

    private TestgenProcess() {
    }

    /**
     * Runs {@code command} in {@code directory} (the project's) with nothing on its stdin, and
     * waits for it and for all of its output: stdout's lines go to {@code output} (progress and
     * the summary: Gradle's lifecycle level, Maven's info), stderr's to {@code warnings}, and so
     * does a failure to read them.
     */
    public static void run(List<String> command, File directory, Consumer<String> output,
            Consumer<String> warnings) throws IOException, InterruptedException, FailedException {
        Process process = new ProcessBuilder(command).directory(directory).start();
        process.getOutputStream().close();
        Deque<String> errors = new ArrayDeque<String>();
        Thread stderr = pump(process.getErrorStream(), warnings, warnings, errors);
        Thread stdout = pump(process.getInputStream(), output, warnings, null);
        int status = process.waitFor();
        stdout.join();
        stderr.join();
        if (status != 0) {
            StringBuilder message = new StringBuilder("testgen failed (exit status " + status + ")");
            synchronized (errors) {
                for (String line : errors) {
                    message.append('\n').append(line);
                }
            }
            throw new FailedException(message.toString());
        }
    }

    /** Copies a stream of the binary to {@code lines}; stderr ({@code keep} not null) keeps its last lines. */
    private static Thread pump(final InputStream stream, final Consumer<String> lines,
            final Consumer<String> warnings, final Deque<String> keep) {
        Thread thread = new Thread(new Runnable() {
            @Override
            public void run() {
                try (BufferedReader reader = new BufferedReader(
                        new InputStreamReader(stream, Charset.defaultCharset()))) {
                    String line;
                    while ((line = reader.readLine()) != null) {
                        lines.accept(line);
                        if (keep != null) {
                            synchronized (keep) {
                                keep.addLast(line);
                                if (keep.size() > KEPT_ERROR_LINES) {
                                    keep.removeFirst();
                                }
                            }
                        }
                    }
                } catch (IOException e) {
                    warnings.accept("testgen: reading the binary's output failed: " + e);
                }
            }
        }, "testgen-output");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
