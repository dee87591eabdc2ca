package dev.testgen.common;

import java.io.File;
import java.io.IOException;
import java.util.zip.ZipFile;

/**
 * Which JUnit the generated tests should use, from what is on the module's test classpath:
 * Jupiter's API anywhere wins (5), else JUnit 4's {@code org.junit.Test} (4), else 5 with a
 * warning.
 */
public final class JUnitDetector {
    private static final String JUPITER = "org/junit/jupiter/api/Test.class";
    private static final String JUNIT4 = "org/junit/Test.class";

    /** The JUnit version and the classpath entry that decided it. */
    public static final class Result {
        /** 5 or 4; 5 when neither is on the classpath. */
        public final int version;
        /** The entry that holds that JUnit; null when neither is on the classpath. */
        public final File evidence;

        Result(int version, File evidence) {
            this.version = version;
            this.evidence = evidence;
        }

        /**
         * The line for the build's log, at info level, or at warning level when neither JUnit was
         * found ({@link #evidence} null); {@code classpath} names where the plugin looked.
         */
        public String message(String classpath) {
            if (evidence == null) {
                return "testgen: neither JUnit 5 (org.junit.jupiter.api) nor JUnit 4 (org.junit.Test) is on "
                        + classpath + "; generating JUnit 5 tests";
            }
            return "testgen: JUnit " + version + " (found in " + evidence + ")";
        }
    }

    private JUnitDetector() {
    }

    public static Result detect(Iterable<File> testClasspath) {
        File junit4 = null;
        for (File entry : testClasspath) {
            if (contains(entry, JUPITER)) {
                return new Result(5, entry);
            }
            if (junit4 == null && contains(entry, JUNIT4)) {
                junit4 = entry;
            }
        }
        return junit4 != null ? new Result(4, junit4) : new Result(5, null);
    }

    private static boolean contains(File entry, String classFile) {
        if (entry.isDirectory()) {
            return new File(entry, classFile).isFile();
        }
        if (!entry.isFile()) {
            return false;
        }
        // Reading the jar's central directory is cheap next to the build; names lie too often
        // (Debian's junit4.jar, shaded or renamed jars) to go by the file name alone.
        try (ZipFile zip = new ZipFile(entry)) {
            return zip.getEntry(classFile) != null;
        } catch (IOException e) {
            return false;
        }
    }
}
