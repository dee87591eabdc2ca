package dev.testgen.common;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Finds the testgen binary for a build plugin, in a fixed order: the places the plugin adds with
 * {@link #setting} (its explicit setting, then the {@code testgen.binary} property), then the
 * {@code TESTGEN_BINARY} environment variable, then {@code testgen} on the {@code PATH}, then the
 * released per-platform artifact (see {@link ReleasedBinary}).
 *
 * <p>The first place that names a binary decides: a setting that names a missing file is an
 * error, not a reason to try the next place, so a typo never silently runs another testgen.
 * When nothing is found, the exception's message lists every place with the value seen there.
 */
public final class BinaryLocator {
    /** The property (Gradle: {@code -P}, Maven: {@code -D}) that names the binary. */
    public static final String PROPERTY = "testgen.binary";
    /** The environment variable that names the binary. */
    public static final String ENV = "TESTGEN_BINARY";
    /** Maven coordinates a release would publish the binary under, one classifier per platform. */
    public static final String GROUP = "dev.testgen";
    public static final String ARTIFACT = "testgen";
    public static final String EXTENSION = "exe";

    /**
     * Resolves the released binary of one version and platform as a build dependency, the way
     * protoc is shipped ({@code com.google.protobuf:protoc:3.x:linux-x86_64@exe}).
     */
    public interface ReleasedBinary {
        /** The binary's file, or null when it cannot be resolved (today: no release has it). */
        File resolve(String group, String artifact, String version, String classifier, String extension);
    }

    /** What both plugins pass until a release publishes the binary: nothing to resolve. */
    public static final ReleasedBinary NOT_PUBLISHED = new ReleasedBinary() {
        @Override
        public File resolve(String group, String artifact, String version, String classifier, String extension) {
            return null;
        }
    };

    /** Nothing worked; the message says where the locator looked and how to fix it. */
    public static final class NotFoundException extends Exception {
        private static final long serialVersionUID = 1L;

        NotFoundException(String message) {
            super(message);
        }
    }

    private final File baseDir;
    private final List<String[]> settings = new ArrayList<String[]>();

    /** Relative paths in settings are resolved against {@code baseDir} (the project's directory). */
    public BinaryLocator(File baseDir) {
        this.baseDir = baseDir;
    }

    /** Adds a place that may name the binary; {@code value} null or empty means "not set". */
    public BinaryLocator setting(String place, Object value) {
        settings.add(new String[] {place, value == null ? null : value.toString()});
        return this;
    }

    /**
     * Looks in every setting, then in {@code $TESTGEN_BINARY}, then on the {@code PATH}, then asks
     * {@code released} for the plugin's version ({@link #pluginVersion()}). {@code fix} is the last
     * line of the message.
     */
    public File locate(ReleasedBinary released, String fix) throws NotFoundException {
        String version = pluginVersion();
        String path = System.getenv("PATH");
        List<String[]> places = new ArrayList<String[]>(settings);
        places.add(new String[] {"environment variable " + ENV, System.getenv(ENV)});
        List<String> looked = new ArrayList<String>();
        for (String[] setting : places) {
            String place = setting[0];
            String value = setting[1];
            if (value == null || value.trim().isEmpty()) {
                looked.add(place + ": not set");
                continue;
            }
            File file = new File(value);
            if (!file.isAbsolute()) {
                file = new File(baseDir, value);
            }
            if (file.isFile()) {
                return file;
            }
            looked.add(place + ": " + value + " is not a file");
            throw new NotFoundException(message("the testgen binary named by " + place + " does not exist",
                    looked, fix));
        }
        File onPath = onPath(path);
        if (onPath != null) {
            return onPath;
        }
        looked.add(executableName() + " on the PATH (" + (path == null ? "PATH not set" : path) + "): not found");
        String classifier = platformClassifier();
        File artifact = released.resolve(GROUP, ARTIFACT, version, classifier, EXTENSION);
        if (artifact != null && artifact.isFile()) {
            return artifact;
        }
        looked.add("released artifact " + GROUP + ":" + ARTIFACT + ":" + version + " (classifier " + classifier
                + ", type " + EXTENSION + "): not published yet");
        throw new NotFoundException(message("cannot find the testgen binary", looked, fix));
    }

    /**
     * The version of the running plugin, which the released binary shares: the Implementation-Version
     * of the jar these classes come from, the Gradle plugin's own jar or, in a Maven build, the
     * testgen-plugin-common jar of the Maven plugin's version.
     */
    public static String pluginVersion() {
        String version = BinaryLocator.class.getPackage().getImplementationVersion();
        return version != null ? version : "unknown";
    }

    private static String message(String what, List<String> looked, String fix) {
        StringBuilder message = new StringBuilder("testgen: ").append(what).append(". Looked, in this order, at:");
        for (int i = 0; i < looked.size(); i++) {
            message.append("\n  ").append(i + 1).append(". ").append(looked.get(i));
        }
        return message.append('\n').append(fix).toString();
    }

    private static File onPath(String path) {
        if (path == null) {
            return null;
        }
        for (String dir : path.split(Pattern.quote(File.pathSeparator))) {
            File candidate = new File(dir, executableName());
            if (!dir.isEmpty() && candidate.isFile() && candidate.canExecute()) {
                return candidate;
            }
        }
        return null;
    }

    private static String executableName() {
        return isWindows() ? "testgen.exe" : "testgen";
    }

    static boolean isWindows() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
    }

    /**
     * This platform's classifier in the naming protoc's artifacts use (os-maven-plugin's):
     * {@code linux-x86_64}, {@code osx-aarch_64}, {@code windows-x86_64}, ...
     */
    public static String platformClassifier() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String osName = os.startsWith("windows") ? "windows"
                : os.startsWith("mac") || os.startsWith("darwin") ? "osx"
                : os.startsWith("linux") ? "linux" : os.replaceAll("[^a-z0-9]", "");
        String archName = arch.equals("amd64") || arch.equals("x86_64") ? "x86_64"
                : arch.equals("aarch64") || arch.equals("arm64") ? "aarch_64" : arch.replaceAll("[^a-z0-9_]", "");
        return osName + "-" + archName;
    }
}
