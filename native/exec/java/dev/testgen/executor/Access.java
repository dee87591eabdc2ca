package dev.testgen.executor;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Records the file, network and process accesses of the running plan. Fed
 * by {@link Monitor} (kept apart so that nothing else depends on the
 * SecurityManager class, which future JDKs may drop).
 *
 * Only accesses by the plan's threads count, and not the executor's own
 * work on those threads (loading classes, reading resources), which runs
 * "quietly".
 */
final class Access {
    private Access() {}

    /** Per thread: how deep inside executor-internal work it is. */
    private static final ThreadLocal<int[]> QUIET = new ThreadLocal<int[]>() {
        @Override
        protected int[] initialValue() {
            return new int[1];
        }
    };

    /** Reads below these directories (the JDK, the executor's classes) are not the code's doing. */
    private static volatile String[] ignoredReadRoots = new String[0];

    /**
     * Reads of these files (the classpath's jars) are the program reading its
     * own resources, which the user's test classpath holds as well.
     */
    private static volatile Set<String> ignoredReadFiles = Collections.emptySet();

    static void ignoreReadsUnder(String... roots) {
        String[] withSeparators = new String[roots.length];
        for (int i = 0; i < roots.length; i++) {
            String root = new File(roots[i]).getAbsolutePath();
            withSeparators[i] = root.endsWith(File.separator) ? root : root + File.separator;
        }
        ignoredReadRoots = withSeparators;
    }

    /**
     * The program's classpath: a read inside one of its directories or of one
     * of its jars is a resource read (getResourceAsStream), not a file the
     * test would depend on.
     */
    static void ignoreReadsOfClasspath(List<File> entries) {
        Set<String> files = new HashSet<>();
        List<String> roots = new ArrayList<>(Arrays.asList(ignoredReadRoots));
        for (File entry : entries) {
            for (String path : pathAndRealPath(entry)) {
                if (entry.isDirectory()) {
                    roots.add(path.endsWith(File.separator) ? path : path + File.separator);
                } else {
                    files.add(path);
                }
            }
        }
        ignoredReadRoots = roots.toArray(new String[0]);
        ignoredReadFiles = files;
    }

    private static List<String> pathAndRealPath(File file) {
        List<String> paths = new ArrayList<>();
        paths.add(file.getAbsolutePath());
        try {
            paths.add(file.getCanonicalPath());
        } catch (IOException e) {
            // The path as given is all there is.
        }
        return paths;
    }

    static void beginQuiet() {
        QUIET.get()[0]++;
    }

    static void endQuiet() {
        QUIET.get()[0]--;
    }

    /** The plan to charge an access to, or null if it is not the plan's. */
    private static PlanContext charged() {
        PlanContext plan = PlanContext.current;
        if (plan == null || QUIET.get()[0] > 0) {
            return null;
        }
        ThreadGroup group = Thread.currentThread().getThreadGroup();
        return group != null && plan.group.parentOf(group) ? plan : null;
    }

    /** A FilePermission check: {@code actions} is a comma-separated list. */
    static void file(String path, String actions) {
        PlanContext plan = charged();
        if (plan == null) {
            return;
        }
        String absolute = "<<ALL FILES>>".equals(path) ? path : new File(path).getAbsolutePath();
        for (String action : actions.split(",")) {
            String mode;
            switch (action.trim()) {
                case "read":
                case "readlink":
                    if (isIgnoredRead(absolute)) {
                        continue;
                    }
                    mode = "read";
                    break;
                case "write":
                    mode = "write";
                    break;
                case "delete":
                    mode = "delete";
                    break;
                case "execute":
                    exec(path);
                    continue;
                default:
                    continue;
            }
            plan.access(new Json.Writer().beginObject().field("kind", "file").field("path", absolute)
                    .field("mode", mode).endObject().out.toString());
        }
    }

    private static boolean isIgnoredRead(String absolute) {
        if (ignoredReadFiles.contains(absolute)) {
            return true;
        }
        for (String root : ignoredReadRoots) {
            if (absolute.startsWith(root)) {
                return true;
            }
        }
        return false;
    }

    /** A SocketPermission check: {@code name} is host, host:port or host:range. */
    static void network(String name, String actions) {
        PlanContext plan = charged();
        if (plan == null) {
            return;
        }
        String host = name;
        String portText = null;
        if (name.startsWith("[")) {
            int close = name.indexOf("]:");
            if (close > 0) {
                host = name.substring(0, close + 1);
                portText = name.substring(close + 2);
            }
        } else if (name.indexOf(':') >= 0 && name.indexOf(':') == name.lastIndexOf(':')) {
            host = name.substring(0, name.indexOf(':'));
            portText = name.substring(name.indexOf(':') + 1);
        }
        Integer port = null;
        if (portText != null) {
            try {
                port = Integer.valueOf(portText);
            } catch (NumberFormatException e) {
                port = null; // a range such as 1024-
            }
        }
        String action = strongest(actions);
        if (action == null) {
            return;
        }
        Json.Writer json = new Json.Writer().beginObject().field("kind", "network").field("host", host);
        if (port != null && !"resolve".equals(action)) {
            json.field("port", port);
        }
        plan.access(json.field("action", action).endObject().out.toString());
    }

    /** "connect,resolve" is a connection: resolution is implied by the others. */
    private static String strongest(String actions) {
        String result = null;
        for (String action : actions.split(",")) {
            switch (action.trim()) {
                case "connect":
                case "listen":
                case "accept":
                    return action.trim();
                case "resolve":
                    result = "resolve";
                    break;
                default:
                    break;
            }
        }
        return result;
    }

    static void exec(String command) {
        PlanContext plan = charged();
        if (plan == null) {
            return;
        }
        plan.access(new Json.Writer().beginObject().field("kind", "exec").field("command", command)
                .endObject().out.toString());
    }
}
