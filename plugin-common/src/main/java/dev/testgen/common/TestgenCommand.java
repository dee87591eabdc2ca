package dev.testgen.common;

import java.io.File;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The {@code testgen generate} command line, from every option a build plugin passes. Both
 * plugins fill one and run {@link #commandLine()}, so the same options give the same arguments
 * in the same order whichever build tool passes them (tests/plugins.rs checks that in real
 * Gradle and Maven builds).
 *
 * <p>Options left unset (null) are left out, and testgen's defaults apply; {@link #commandLine()}
 * fails on a required one left unset (binary, out, cache, report, java, junit), which would be a
 * plugin's bug.
 */
public final class TestgenCommand {
    private File binary;
    private List<File> classes = Collections.emptyList();
    private List<File> classpath = Collections.emptyList();
    private File outputDir;
    private File cacheDir;
    private File reportDir;
    private List<File> sources = Collections.emptyList();
    private File javaExecutable;
    private Integer junit;
    private boolean testAssertions = true;
    private List<String> testJvmArgs = Collections.emptyList();
    private Map<String, String> testSystemProperties = Collections.emptyMap();
    private File testWorkingDir;
    private Integer budgetSeconds;
    private Integer totalBudgetSeconds;
    private Integer maxRuns;
    private List<String> includes = Collections.emptyList();
    private List<String> excludes = Collections.emptyList();
    private String mode;
    private Long seed;
    private Integer jobs;

    /** The testgen binary, found by {@link BinaryLocator}. */
    public TestgenCommand binary(File binary) {
        this.binary = binary;
        return this;
    }

    /** The compiled classes ({@code --classes}, one per directory or jar that exists). */
    public TestgenCommand classes(Iterable<File> classes) {
        this.classes = copy(classes);
        return this;
    }

    /**
     * What the classes need at run time ({@code --classpath}, joined with the platform's path
     * separator): entries that do not exist, repeated ones and the classes themselves are left
     * out, and so is the option when nothing is left.
     */
    public TestgenCommand classpath(Iterable<File> classpath) {
        this.classpath = copy(classpath);
        return this;
    }

    /** Where the generated test sources go ({@code --out}). */
    public TestgenCommand outputDir(File outputDir) {
        this.outputDir = outputDir;
        return this;
    }

    /** testgen's per-class cache ({@code --cache}). */
    public TestgenCommand cacheDir(File cacheDir) {
        this.cacheDir = cacheDir;
        return this;
    }

    /** Where {@code testgen-report.json} goes ({@code --report}). */
    public TestgenCommand reportDir(File reportDir) {
        this.reportDir = reportDir;
        return this;
    }

    /**
     * The module's Java source roots ({@code --sources}, one each), for the source lines in
     * {@code testgen-report.html}: directories holding a {@code .java} file, and {@code .jar} or
     * {@code .zip} files; the others (a source root not created, an annotation processor's empty
     * output directory) are left out, since they add nothing.
     */
    public TestgenCommand sources(Iterable<File> sources) {
        this.sources = copy(sources);
        return this;
    }

    /** The {@code java} that runs the code under test ({@code --java}); see {@link #javaOfThisJvm()}. */
    public TestgenCommand javaExecutable(File javaExecutable) {
        this.javaExecutable = javaExecutable;
        return this;
    }

    /** The JUnit version of the generated tests ({@code --junit}), configured or detected. */
    public TestgenCommand junit(Integer junit) {
        this.junit = junit;
        return this;
    }

    /** Whether the build's test task runs {@code assert} statements ({@code --assertions on|off}). */
    public TestgenCommand testAssertions(boolean testAssertions) {
        this.testAssertions = testAssertions;
        return this;
    }

    /** The test task's JVM options ({@code --test-jvm-arg=OPTION} each; blank ones left out). */
    public TestgenCommand testJvmArgs(List<String> testJvmArgs) {
        this.testJvmArgs = new ArrayList<String>(testJvmArgs);
        return this;
    }

    /** The test task's system properties ({@code --test-system-property=NAME=VALUE}, by name). */
    public TestgenCommand testSystemProperties(Map<String, String> testSystemProperties) {
        this.testSystemProperties = new TreeMap<String, String>(testSystemProperties);
        return this;
    }

    /** Where the test task runs tests ({@code --test-working-dir}; left out unless a directory). */
    public TestgenCommand testWorkingDir(File testWorkingDir) {
        this.testWorkingDir = testWorkingDir;
        return this;
    }

    /** Time budget per class in seconds ({@code --budget}). */
    public TestgenCommand budgetSeconds(Integer budgetSeconds) {
        this.budgetSeconds = budgetSeconds;
        return this;
    }

    /** The whole run's time in seconds ({@code --total-budget}). */
    public TestgenCommand totalBudgetSeconds(Integer totalBudgetSeconds) {
        this.totalBudgetSeconds = totalBudgetSeconds;
        return this;
    }

    /** Runs of one method at most while exploring ({@code --max-runs}). */
    public TestgenCommand maxRuns(Integer maxRuns) {
        this.maxRuns = maxRuns;
        return this;
    }

    /** Class name patterns to test ({@code --include}, one each, in this order). */
    public TestgenCommand includes(List<String> includes) {
        this.includes = new ArrayList<String>(includes);
        return this;
    }

    /** Class name patterns to leave out ({@code --exclude}, one each, in this order). */
    public TestgenCommand excludes(List<String> excludes) {
        this.excludes = new ArrayList<String>(excludes);
        return this;
    }

    /** {@code --mode}, passed as given: testgen checks the value. */
    public TestgenCommand mode(String mode) {
        this.mode = mode;
        return this;
    }

    /** Seed of testgen's search ({@code --seed}). */
    public TestgenCommand seed(Long seed) {
        this.seed = seed;
        return this;
    }

    /** Worker count ({@code --jobs}). */
    public TestgenCommand jobs(Integer jobs) {
        this.jobs = jobs;
        return this;
    }

    /**
     * The binary, {@code generate} and the options, always in this order: {@code --classes},
     * {@code --classpath}, {@code --out}, {@code --cache}, {@code --report}, {@code --sources}, {@code --java},
     * {@code --junit}, the test task's options ({@link TestTaskOptions}), {@code --budget},
     * {@code --total-budget}, {@code --max-runs}, {@code --include}, {@code --exclude},
     * {@code --mode}, {@code --seed}, {@code --jobs}. Paths are absolute.
     */
    public List<String> commandLine() {
        List<String> command = new ArrayList<String>();
        command.add(required(binary, "binary").getAbsolutePath());
        command.add("generate");
        Set<String> classesPaths = new LinkedHashSet<String>();
        for (File entry : classes) {
            if (entry.exists()) {
                classesPaths.add(entry.getAbsolutePath());
            }
        }
        for (String path : classesPaths) {
            command.add("--classes");
            command.add(path);
        }
        Set<String> classpathEntries = new LinkedHashSet<String>();
        for (File entry : classpath) {
            if (entry.exists() && !classesPaths.contains(entry.getAbsolutePath())) {
                classpathEntries.add(entry.getAbsolutePath());
            }
        }
        if (!classpathEntries.isEmpty()) {
            command.add("--classpath");
            command.add(join(classpathEntries));
        }
        command.add("--out");
        command.add(required(outputDir, "out").getAbsolutePath());
        command.add("--cache");
        command.add(required(cacheDir, "cache").getAbsolutePath());
        command.add("--report");
        command.add(required(reportDir, "report").getAbsolutePath());
        Set<String> sourceRoots = new LinkedHashSet<String>();
        for (File root : sources) {
            if (hasSources(root)) {
                sourceRoots.add(root.getAbsolutePath());
            }
        }
        for (String root : sourceRoots) {
            command.add("--sources");
            command.add(root);
        }
        command.add("--java");
        command.add(required(javaExecutable, "java").getAbsolutePath());
        command.add("--junit");
        command.add(String.valueOf(required(junit, "junit")));
        command.addAll(TestTaskOptions.arguments(testAssertions, testJvmArgs, testSystemProperties, testWorkingDir));
        addIfSet(command, "--budget", budgetSeconds);
        addIfSet(command, "--total-budget", totalBudgetSeconds);
        addIfSet(command, "--max-runs", maxRuns);
        for (String include : includes) {
            command.add("--include");
            command.add(include);
        }
        for (String exclude : excludes) {
            command.add("--exclude");
            command.add(exclude);
        }
        addIfSet(command, "--mode", mode);
        addIfSet(command, "--seed", seed);
        addIfSet(command, "--jobs", jobs);
        return command;
    }

    /** The {@code java} of the JVM running the build: {@code --java} when nothing else is set. */
    public static File javaOfThisJvm() {
        return new File(new File(System.getProperty("java.home"), "bin"),
                BinaryLocator.isWindows() ? "java.exe" : "java");
    }

    /** A {@code .jar} or {@code .zip} file, or a directory with a {@code .java} file somewhere below. */
    private static boolean hasSources(File root) {
        if (root.isFile()) {
            String name = root.getName().toLowerCase(java.util.Locale.ROOT);
            return name.endsWith(".jar") || name.endsWith(".zip");
        }
        return hasJavaFile(root, 0);
    }

    /** Whether {@code dir} holds a {@code .java} file; the depth bound guards against link cycles. */
    private static boolean hasJavaFile(File dir, int depth) {
        File[] children = dir.listFiles();
        if (children == null || depth > 64) {
            return false;
        }
        for (File child : children) {
            if (child.isDirectory() ? hasJavaFile(child, depth + 1) : child.getName().endsWith(".java")) {
                return true;
            }
        }
        return false;
    }

    private static void addIfSet(List<String> command, String option, Object value) {
        if (value != null) {
            command.add(option);
            command.add(value.toString());
        }
    }

    private static <T> T required(T value, String option) {
        if (value == null) {
            throw new IllegalStateException("testgen: the plugin did not set --" + option);
        }
        return value;
    }

    private static List<File> copy(Iterable<File> files) {
        List<File> copy = new ArrayList<File>();
        for (File file : files) {
            copy.add(file);
        }
        return copy;
    }

    private static String join(Set<String> entries) {
        StringBuilder joined = new StringBuilder();
        for (String entry : entries) {
            if (joined.length() > 0) {
                joined.append(File.pathSeparator);
            }
            joined.append(entry);
        }
        return joined.toString();
    }
}
