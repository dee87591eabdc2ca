package dev.testgen.gradle;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;

import dev.testgen.common.BinaryLocator;
import dev.testgen.common.JUnitDetector;
import dev.testgen.common.TestgenCommand;
import dev.testgen.common.TestgenProcess;

import org.gradle.api.DefaultTask;
import org.gradle.api.GradleException;
import org.gradle.api.Task;
import org.gradle.api.file.FileCollection;
import org.gradle.api.file.FileSystemLocation;
import org.gradle.api.file.SourceDirectorySet;
import org.gradle.api.logging.Logger;
import org.gradle.api.provider.Provider;
import org.gradle.api.specs.Spec;
import org.gradle.api.tasks.CacheableTask;
import org.gradle.api.tasks.Classpath;
import org.gradle.api.tasks.Input;
import org.gradle.api.tasks.InputFile;
import org.gradle.api.tasks.InputFiles;
import org.gradle.api.tasks.Internal;
import org.gradle.api.tasks.LocalState;
import org.gradle.api.tasks.Optional;
import org.gradle.api.tasks.OutputDirectory;
import org.gradle.api.tasks.PathSensitive;
import org.gradle.api.tasks.PathSensitivity;
import org.gradle.api.tasks.SkipWhenEmpty;
import org.gradle.api.tasks.TaskAction;
import org.gradle.api.tasks.testing.Test;

/**
 * Runs {@code testgen generate} on one source set's compiled classes and writes JUnit test
 * sources into {@link #getOutputDir()}.
 *
 * <p>Every input is declared, so Gradle skips the task when nothing changed (UP-TO-DATE) and can
 * take its outputs from a build cache, also a remote one: the classes are fingerprinted by
 * relative path and content, the classpath as a classpath, the binary and the JDK by content and
 * version, never by absolute path. testgen's own per-class cache is local state: Gradle deletes
 * it when the outputs come from the build cache, and testgen starts over for changed classes.
 *
 * <p>Options left unset on the task come from the project's {@code testgen { }} extension.
 */
@CacheableTask
public class GenerateTestsTask extends DefaultTask {
    private final File projectDir;
    /** The {@code testgen.*} project properties ({@code -Ptestgen.junit=4}, gradle.properties). */
    private final Map<String, Object> properties = new HashMap<String, Object>();
    private TestgenExtension defaults = new TestgenExtension();

    private FileCollection classesDirs;
    private FileCollection classpath;
    private SourceDirectorySet javaSources;
    private FileCollection testClasspath;
    private Object outputDir;
    private Object reportDir;
    private Object cacheDir;

    private Object binary;
    private Object javaExecutable;
    private Integer junit;
    private Integer budgetSeconds;
    private Integer totalBudgetSeconds;
    private Integer maxRuns;
    private List<String> includes;
    private List<String> excludes;
    private String mode;
    private Long seed;
    private Integer jobs;
    /** The task that runs the tests; testgen runs the code as it does. */
    private Test testTask;

    public GenerateTestsTask() {
        // Read at configuration time, so the task action never needs the Project.
        projectDir = getProject().getProjectDir();
        for (String name : PROPERTY_NAMES) {
            Object value = getProject().findProperty("testgen." + name);
            if (value != null) {
                properties.put(name, value);
            }
        }
        // A nightly run exists to explore further than the last one: unchanged inputs must not
        // skip it (UP-TO-DATE) nor bring back an earlier run's outputs (FROM-CACHE, which would
        // also delete testgen's cache, the local state it builds on).
        Spec<Task> nightly = new Spec<Task>() {
            @Override
            public boolean isSatisfiedBy(Task task) {
                return NIGHTLY.equals(((GenerateTestsTask) task).getMode());
            }
        };
        getOutputs().upToDateWhen(new Spec<Task>() {
            @Override
            public boolean isSatisfiedBy(Task task) {
                return !NIGHTLY.equals(((GenerateTestsTask) task).getMode());
            }
        });
        getOutputs().doNotCacheIf("mode nightly explores further on every run", nightly);
    }

    /** The mode that is never up to date; testgen itself validates the mode's value. */
    private static final String NIGHTLY = "nightly";

    /** Options that can also be given as {@code -Ptestgen.NAME=VALUE}. */
    private static final String[] PROPERTY_NAMES = {
        "binary", "junit", "budgetSeconds", "totalBudgetSeconds", "maxRuns", "mode", "seed", "jobs",
    };

    /** Where unset options come from; the plugin passes the project's extension. */
    void setDefaults(TestgenExtension defaults) {
        this.defaults = defaults;
    }

    // ---- inputs -------------------------------------------------------------------------

    /** The compiled classes to test ({@code --classes}, one per directory or jar). */
    @InputFiles
    @SkipWhenEmpty
    @PathSensitive(PathSensitivity.RELATIVE)
    public FileCollection getClassesDirs() {
        return classesDirs;
    }

    public void setClassesDirs(FileCollection classesDirs) {
        this.classesDirs = classesDirs;
    }

    /** What the classes need at run time ({@code --classpath}), without the classes themselves. */
    @Classpath
    public FileCollection getClasspath() {
        return classpath;
    }

    public void setClasspath(FileCollection classpath) {
        this.classpath = classpath;
    }

    /**
     * The Java sources of the classes: their directories are passed as {@code --sources} (those
     * with sources), for the source line of each branch outcome the report lists as open. The
     * {@code .java} files are an input, since the report is an output, by relative path (the task
     * stays relocatable); as a source set's own {@code SourceDirectorySet} they carry the tasks
     * that generate sources into it, if any.
     */
    @InputFiles
    @Optional
    @PathSensitive(PathSensitivity.RELATIVE)
    public SourceDirectorySet getJavaSources() {
        return javaSources;
    }

    public void setJavaSources(SourceDirectorySet javaSources) {
        this.javaSources = javaSources;
    }

    /**
     * The testgen binary that will run, found when the task runs: the task's or extension's
     * {@code binary}, else {@code -Ptestgen.binary}, else {@code $TESTGEN_BINARY}, else
     * {@code testgen} on the {@code PATH} (see {@link BinaryLocator}). Its content is an input:
     * a new testgen re-runs the task, a different location of the same binary does not.
     */
    @InputFile
    @PathSensitive(PathSensitivity.NONE)
    public File getResolvedBinary() {
        Object configured = binary != null ? binary : defaults.getBinary();
        BinaryLocator locator = new BinaryLocator(projectDir)
                .setting("testgen { binary } or " + getName() + " { binary } in the build script",
                        configured == null ? null : resolve(configured))
                .setting("project property " + BinaryLocator.PROPERTY + " (-P" + BinaryLocator.PROPERTY + "=...)",
                        properties.get("binary"));
        // Once a release publishes the binary, resolve it the way the protobuf plugin resolves protoc:
        // a detached configuration with the dependency group:artifact:version:classifier@extension,
        // from the build's repositories (it needs the Project, so create it at configuration time).
        BinaryLocator.ReleasedBinary released = BinaryLocator.NOT_PUBLISHED;
        try {
            return locator.locate(released, "Fix: pass -P" + BinaryLocator.PROPERTY + "=/path/to/testgen, set "
                    + "testgen { binary = '/path/to/testgen' }, export " + BinaryLocator.ENV + "=/path/to/testgen, "
                    + "or put testgen on the PATH (build it with: cargo build --release -p testgen_cli).");
        } catch (BinaryLocator.NotFoundException e) {
            // A GradleException's message is what Gradle shows under "What went wrong".
            throw new GradleException(e.getMessage());
        }
    }

    /** Sets the testgen binary for this task (a path or File); see {@link #getResolvedBinary()}. */
    public void setBinary(Object binary) {
        this.binary = binary;
    }

    /** The {@code java} that runs the code under test ({@code --java}); default: Gradle's JVM. */
    @Internal("Identified by getJavaRelease(), so the task stays relocatable")
    public File getJavaExecutable() {
        Object configured = javaExecutable != null ? javaExecutable : defaults.getJavaExecutable();
        return configured != null ? resolve(configured) : TestgenCommand.javaOfThisJvm();
    }

    public void setJavaExecutable(Object javaExecutable) {
        this.javaExecutable = javaExecutable;
    }

    /**
     * The version of the JDK that runs the code (from its {@code release} file), an input in
     * place of the path of {@code java}: the values the tests assert may depend on it.
     */
    @Input
    @Optional
    public String getJavaRelease() {
        File home = getJavaExecutable().getAbsoluteFile().getParentFile().getParentFile();
        File release = new File(home, "release");
        if (!release.isFile()) {
            return null;
        }
        Properties properties = new Properties();
        try (InputStream in = new java.io.FileInputStream(release)) {
            properties.load(in);
        } catch (IOException e) {
            return null;
        }
        String version = properties.getProperty("JAVA_VERSION");
        return version == null ? null : version.replace("\"", "");
    }

    /**
     * JUnit version of the generated tests ({@code --junit}): the task's or extension's
     * {@code junit}, else {@code -Ptestgen.junit}, else detected from the test compile classpath
     * (Jupiter's API there: 5, else JUnit 4's: 4).
     */
    @Input
    public int getJunit() {
        Integer configured = junit != null ? junit : defaults.getJunit();
        if (configured == null) {
            configured = intProperty("junit");
        }
        if (configured != null) {
            return configured;
        }
        JUnitDetector.Result detected = JUnitDetector.detect(testClasspath.getFiles());
        String message = detected.message("the test compile classpath of " + getPath());
        if (detected.evidence == null) {
            getLogger().warn(message);
        } else {
            getLogger().info(message);
        }
        return detected.version;
    }

    public void setJunit(Integer junit) {
        this.junit = junit;
    }

    /** Where the JUnit version is detected from when it is not set: the test compile classpath. */
    @Internal("Only the detected version matters, and that is getJunit()")
    public FileCollection getTestClasspath() {
        return testClasspath;
    }

    public void setTestClasspath(FileCollection testClasspath) {
        this.testClasspath = testClasspath;
    }

    @Input
    @Optional
    public Integer getBudgetSeconds() {
        Integer configured = budgetSeconds != null ? budgetSeconds : defaults.getBudgetSeconds();
        return configured != null ? configured : intProperty("budgetSeconds");
    }

    public void setBudgetSeconds(Integer budgetSeconds) {
        this.budgetSeconds = budgetSeconds;
    }

    /** The whole run's time in seconds ({@code --total-budget}, meant for mode nightly); unset: none. */
    @Input
    @Optional
    public Integer getTotalBudgetSeconds() {
        Integer configured = totalBudgetSeconds != null ? totalBudgetSeconds : defaults.getTotalBudgetSeconds();
        return configured != null ? configured : intProperty("totalBudgetSeconds");
    }

    public void setTotalBudgetSeconds(Integer totalBudgetSeconds) {
        this.totalBudgetSeconds = totalBudgetSeconds;
    }

    /** Runs of one method at most while exploring ({@code --max-runs}); unset: testgen's default. */
    @Input
    @Optional
    public Integer getMaxRuns() {
        Integer configured = maxRuns != null ? maxRuns : defaults.getMaxRuns();
        return configured != null ? configured : intProperty("maxRuns");
    }

    public void setMaxRuns(Integer maxRuns) {
        this.maxRuns = maxRuns;
    }

    @Input
    public List<String> getIncludes() {
        return Collections.unmodifiableList(new ArrayList<String>(includes != null ? includes : defaults.getIncludes()));
    }

    public void setIncludes(List<String> includes) {
        this.includes = new ArrayList<String>(includes);
    }

    @Input
    public List<String> getExcludes() {
        return Collections.unmodifiableList(new ArrayList<String>(excludes != null ? excludes : defaults.getExcludes()));
    }

    public void setExcludes(List<String> excludes) {
        this.excludes = new ArrayList<String>(excludes);
    }

    /**
     * {@code --mode}: {@code incremental} (the default), {@code full} or {@code nightly}, passed as
     * given (testgen rejects anything else). In mode nightly the task is never up to date and its
     * outputs are not taken from the build cache.
     */
    @Input
    public String getMode() {
        String configured = mode != null ? mode : defaults.getMode();
        if (configured == null && properties.containsKey("mode")) {
            configured = properties.get("mode").toString();
        }
        return configured != null ? configured : "incremental";
    }

    public void setMode(String mode) {
        this.mode = mode;
    }

    @Input
    @Optional
    public Long getSeed() {
        Long configured = seed != null ? seed : defaults.getSeed();
        if (configured == null && properties.containsKey("seed")) {
            configured = Long.valueOf(number("seed"));
        }
        return configured;
    }

    public void setSeed(Long seed) {
        this.seed = seed;
    }

    /** Worker count: testgen's output does not depend on it, so it is not an input. */
    @Internal("testgen's output is the same for any number of workers")
    public Integer getJobs() {
        Integer configured = jobs != null ? jobs : defaults.getJobs();
        return configured != null ? configured : intProperty("jobs");
    }

    public void setJobs(Integer jobs) {
        this.jobs = jobs;
    }

    /** The test task whose settings the code runs under; the plugin sets {@code test}. */
    void setTestTask(Test testTask) {
        this.testTask = testTask;
    }

    /**
     * Whether the test task runs {@code assert} statements ({@code Test.enableAssertions}, true
     * unless the build turns it off): {@code --assertions}. testgen explores and validates with
     * the same setting, so a test never expects what only the other setting does.
     */
    @Input
    public boolean getTestAssertions() {
        return testTask == null || testTask.getEnableAssertions();
    }

    /** The test task's JVM arguments ({@code Test.jvmArgs}): {@code --test-jvm-arg}. */
    @Input
    public List<String> getTestJvmArgs() {
        List<String> args = testTask == null ? null : testTask.getJvmArgs();
        return args == null ? Collections.<String>emptyList() : new ArrayList<String>(args);
    }

    /** The test task's system properties ({@code Test.systemProperties}), sorted: {@code --test-system-property}. */
    @Input
    public Map<String, String> getTestSystemProperties() {
        Map<String, String> properties = new java.util.TreeMap<String, String>();
        if (testTask != null) {
            for (Map.Entry<String, Object> property : testTask.getSystemProperties().entrySet()) {
                properties.put(property.getKey(), String.valueOf(property.getValue()));
            }
        }
        return properties;
    }

    /** Where the test task runs the tests ({@code Test.workingDir}): {@code --test-working-dir}. */
    @Internal("Where the tests run does not change what they assert; an input here would tie the build cache to the path")
    public File getTestWorkingDir() {
        return testTask == null ? null : testTask.getWorkingDir();
    }

    // ---- outputs ------------------------------------------------------------------------

    /** Generated test sources, package directories below ({@code --out}). */
    @OutputDirectory
    public File getOutputDir() {
        return resolve(outputDir);
    }

    public void setOutputDir(Object outputDir) {
        this.outputDir = outputDir;
    }

    /** Where {@code testgen-report.json} and {@code testgen-report.html} are written ({@code --report}). */
    @OutputDirectory
    public File getReportDir() {
        return resolve(reportDir);
    }

    public void setReportDir(Object reportDir) {
        this.reportDir = reportDir;
    }

    /**
     * testgen's per-class cache ({@code --cache}); local to this machine. The plugin sets the
     * extension's {@code cacheDir}, else {@code .testgen} in the project directory.
     */
    @LocalState
    public File getCacheDir() {
        return resolve(cacheDir);
    }

    public void setCacheDir(Object cacheDir) {
        this.cacheDir = cacheDir;
    }

    // ---- action -------------------------------------------------------------------------

    /** The full command line, as the task will run it ({@link TestgenCommand} orders it). */
    @Internal
    public List<String> getCommandLine() {
        return new TestgenCommand()
                .binary(getResolvedBinary())
                .classes(classesDirs.getFiles())
                .classpath(classpath.getFiles())
                .outputDir(getOutputDir())
                .cacheDir(getCacheDir())
                .reportDir(getReportDir())
                .sources(javaSources == null ? Collections.<File>emptySet() : javaSources.getSrcDirs())
                .javaExecutable(getJavaExecutable())
                .junit(getJunit())
                .testAssertions(getTestAssertions())
                .testJvmArgs(getTestJvmArgs())
                .testSystemProperties(getTestSystemProperties())
                .testWorkingDir(getTestWorkingDir())
                .budgetSeconds(getBudgetSeconds())
                .totalBudgetSeconds(getTotalBudgetSeconds())
                .maxRuns(getMaxRuns())
                .includes(getIncludes())
                .excludes(getExcludes())
                .mode(getMode())
                .seed(getSeed())
                .jobs(getJobs())
                .commandLine();
    }

    @TaskAction
    public void generate() throws IOException, InterruptedException {
        List<String> command = getCommandLine();
        if (!getCacheDir().isDirectory() && !getCacheDir().mkdirs()) {
            throw new GradleException("testgen: cannot create the cache directory " + getCacheDir());
        }
        Logger logger = getLogger();
        logger.info("Running {}", command);
        try {
            TestgenProcess.run(command, projectDir, logger::lifecycle, logger::warn);
        } catch (TestgenProcess.FailedException e) {
            throw new GradleException(e.getMessage());
        }
    }

    // ---- helpers ------------------------------------------------------------------------

    private File resolve(Object path) {
        Object value = path;
        if (value instanceof Callable) {
            try {
                value = ((Callable<?>) value).call();
            } catch (Exception e) {
                throw new GradleException("testgen: cannot resolve a path: " + e, e);
            }
        }
        if (value instanceof Provider) {
            value = ((Provider<?>) value).getOrNull();
        }
        if (value instanceof FileSystemLocation) {
            value = ((FileSystemLocation) value).getAsFile();
        }
        if (value == null) {
            throw new GradleException("testgen: a required path of task " + getPath() + " is not set");
        }
        File file = value instanceof File ? (File) value : new File(value.toString());
        return file.isAbsolute() ? file : new File(projectDir, file.getPath());
    }

    private Integer intProperty(String name) {
        return properties.containsKey(name) ? Integer.valueOf((int) number(name)) : null;
    }

    /** A numeric {@code -Ptestgen.NAME}; a value that is not a number fails the build, naming it. */
    private long number(String name) {
        String value = properties.get(name).toString().trim();
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new GradleException("testgen: -Ptestgen." + name + "=" + value + " is not a number");
        }
    }
}
