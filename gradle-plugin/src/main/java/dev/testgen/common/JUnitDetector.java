package dev.testgen.common;

import java.io.File;
import java.io.IOException;
import java.util.zip.ZipFile;

/**
 * Which JUnit the generated tests should use, from what is on the module's test classpath:
 * Jupiter's API anywhere wins (5), else JUnit 4's {@code org.junit.Test} (4).
 *
 * <p>The Gradle and the Maven plugin each carry this file byte for byte (tests/plugins.rs
 * compares the two copies).
 */
public final class JUnitDetector {
    private static final String JUPITER = "org/junit/jupiter/api/Test.class";
    private static final String JUNIT4 = "org/junit/Test.class";

    /** The JUnit version (5, 4 or 0 for neither) and the classpath entry that decided it. */
    public static final class Result {
        public final int version;
        public final File evidence;

        Result(int version, File evidence) {
            this.version = version;
            this.evidence = evidence;
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
        return junit4 != null ? new Result(4, junit4) : new Result(0, null);
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
