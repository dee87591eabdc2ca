package dev.testgen.common;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The testgen options that say how the build's test task runs tests, so that testgen runs the
 * code the same way while it explores and validates: {@code --assertions}, one
 * {@code --test-jvm-arg} per JVM option, one {@code --test-system-property} per system property
 * (sorted by name), {@code --test-working-dir}. {@link TestgenCommand} places them in the command
 * line; {@link #split} turns Surefire's {@code argLine} into the JVM options.
 */
public final class TestTaskOptions {
    private TestTaskOptions() {
    }

    /**
     * The options for a test task that enables assertions (or not), passes {@code jvmArgs} and
     * {@code systemProperties} to its JVM and runs it in {@code workingDir} (left out when null
     * or not a directory yet).
     */
    static List<String> arguments(boolean enableAssertions, List<String> jvmArgs,
            Map<String, String> systemProperties, File workingDir) {
        List<String> arguments = new ArrayList<String>();
        arguments.add("--assertions");
        arguments.add(enableAssertions ? "on" : "off");
        for (String option : jvmArgs) {
            if (!option.trim().isEmpty()) {
                // With `=`: the value starts with `-`.
                arguments.add("--test-jvm-arg=" + option);
            }
        }
        for (Map.Entry<String, String> property : new TreeMap<String, String>(systemProperties).entrySet()) {
            arguments.add("--test-system-property=" + property.getKey() + "=" + property.getValue());
        }
        if (workingDir != null && workingDir.isDirectory()) {
            arguments.add("--test-working-dir");
            arguments.add(workingDir.getAbsolutePath());
        }
        return arguments;
    }

    /**
     * A JVM argument line (Surefire's {@code argLine}) as separate options, split as a shell
     * would: at whitespace outside quotes, with double and single quotes grouping and removed.
     */
    public static List<String> split(String line) {
        List<String> options = new ArrayList<String>();
        if (line == null) {
            return options;
        }
        StringBuilder current = new StringBuilder();
        boolean inOption = false;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    current.append(c);
                }
            } else if (c == '"' || c == '\'') {
                quote = c;
                inOption = true;
            } else if (Character.isWhitespace(c)) {
                if (inOption) {
                    options.add(current.toString());
                    current.setLength(0);
                    inOption = false;
                }
            } else {
                current.append(c);
                inOption = true;
            }
        }
        if (inOption) {
            options.add(current.toString());
        }
        return options;
    }
}
