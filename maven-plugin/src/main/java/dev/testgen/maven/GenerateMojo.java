package dev.testgen.maven;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.testgen.common.BinaryLocator;
import dev.testgen.common.JUnitDetector;
import dev.testgen.common.TestTaskOptions;

import org.apache.maven.artifact.DependencyResolutionRequiredException;
import org.apache.maven.execution.MavenSession;
import org.apache.maven.model.Plugin;
import org.apache.maven.model.PluginExecution;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugin.logging.Log;
import org.apache.maven.plugins.annotations.Component;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.plugins.annotations.ResolutionScope;
import org.apache.maven.project.MavenProject;
import org.apache.maven.toolchain.Toolchain;
import org.apache.maven.toolchain.ToolchainManager;
import org.codehaus.plexus.util.xml.Xpp3Dom;

/**
 * Runs {@code testgen generate} on the module's compiled classes and adds the generated JUnit
 * test sources to the test compile source roots, so that {@code test-compile} compiles them and
 * surefire runs them.
 *
 * <p>Maven has no up-to-date check of its own; testgen's incremental mode and its per-class cache
 * (in {@link #cacheDir}) make a run over unchanged classes cheap.
 */
@Mojo(name = "generate", defaultPhase = LifecyclePhase.GENERATE_TEST_SOURCES,
        requiresDependencyResolution = ResolutionScope.TEST, threadSafe = true)
public class GenerateMojo extends AbstractMojo {
    @Parameter(defaultValue = "${project}", readonly = true, required = true)
    private MavenProject project;

    @Parameter(defaultValue = "${session}", readonly = true, required = true)
    private MavenSession session;

    @Component
    private ToolchainManager toolchainManager;

    /** Skips the goal. */
    @Parameter(property = "testgen.skip", defaultValue = "false")
    private boolean skip;

    /**
     * The testgen binary. Unset: the property {@code testgen.binary} ({@code -D}, then the POM's
     * {@code <properties>}), then the environment variable {@code TESTGEN_BINARY}, then
     * {@code testgen} on the {@code PATH}. Deliberately not bound to the property, so that the
     * error message can say which of them named a missing file.
     */
    @Parameter
    private File binary;

    /** The compiled classes to test ({@code --classes}). */
    @Parameter(property = "testgen.classesDirectory", defaultValue = "${project.build.outputDirectory}",
            required = true)
    private File classesDirectory;

    /** Where test sources are written ({@code --out}); added as a test compile source root. */
    @Parameter(property = "testgen.outputDirectory",
            defaultValue = "${project.build.directory}/generated-test-sources/testgen", required = true)
    private File outputDirectory;

    /** Where {@code testgen-report.json} is written ({@code --report}). */
    @Parameter(property = "testgen.reportDirectory", defaultValue = "${project.reporting.outputDirectory}/testgen",
            required = true)
    private File reportDirectory;

    /**
     * testgen's per-class cache ({@code --cache}); in the module, not under {@code target/}, so
     * that it survives {@code mvn clean}. Keep it between CI runs.
     */
    @Parameter(property = "testgen.cacheDir", defaultValue = "${project.basedir}/.testgen",
            required = true)
    private File cacheDir;

    /**
     * The {@code java} that runs the code under test ({@code --java}). Unset: the {@code java} of
     * the build's JDK toolchain (see {@link #jdkToolchain}), else of the JVM running Maven.
     */
    @Parameter(property = "testgen.javaExecutable")
    private File javaExecutable;

    /**
     * Requirements of the JDK toolchain whose {@code java} runs the code, as in the compiler and
     * surefire plugins: {@code <jdkToolchain><version>17</version></jdkToolchain>} picks a
     * matching {@code jdk} toolchain from {@code toolchains.xml} (no maven-toolchains-plugin
     * needed); none matching fails the build. Unset: the toolchain maven-toolchains-plugin
     * selected, if it ran.
     */
    @Parameter
    private Map<String, String> jdkToolchain;

    /**
     * JUnit generation, 5 or 4 ({@code --junit}); testgen rejects anything else. Unset: detected
     * from the module's test classpath (Jupiter's API there: 5, else JUnit 4: 4).
     */
    @Parameter(property = "testgen.junit")
    private Integer junit;

    /** Time budget per class in seconds ({@code --budget}); unset: testgen's default. */
    @Parameter(property = "testgen.budgetSeconds")
    private Integer budgetSeconds;

    /** The whole run's time in seconds ({@code --total-budget}, meant for mode nightly); unset: none. */
    @Parameter(property = "testgen.totalBudgetSeconds")
    private Integer totalBudgetSeconds;

    /** Runs of one method at most while exploring ({@code --max-runs}); unset: testgen's default. */
    @Parameter(property = "testgen.maxRuns")
    private Integer maxRuns;

    /** Class name patterns to test ({@code --include}, repeated); empty: every class. */
    @Parameter
    private List<String> includes = new ArrayList<String>();

    /** Class name patterns to leave out ({@code --exclude}, repeated). */
    @Parameter
    private List<String> excludes = new ArrayList<String>();

    /**
     * {@code --mode}: {@code incremental} (only changed classes), {@code full} or {@code nightly}
     * (incremental plus deeper exploration, with {@link #totalBudgetSeconds}); passed as given,
     * testgen rejects anything else.
     */
    @Parameter(property = "testgen.mode", defaultValue = "incremental")
    private String mode;

    /** Seed of testgen's search ({@code --seed}); unset: testgen's default. */
    @Parameter(property = "testgen.seed")
    private Long seed;

    /** Worker count ({@code --jobs}); unset: testgen's default. Does not change the output. */
    @Parameter(property = "testgen.jobs")
    private Integer jobs;

    @Override
    public void execute() throws MojoExecutionException, MojoFailureException {
        if (skip) {
            getLog().info("testgen: skipped (testgen.skip)");
            return;
        }
        // Registered even when nothing runs, so tests generated earlier still compile.
        project.addTestCompileSourceRoot(outputDirectory.getAbsolutePath());
        if (!classesDirectory.isDirectory()) {
            getLog().info("testgen: no classes in " + classesDirectory + ", nothing to do");
            return;
        }
        for (File dir : new File[] {outputDirectory, reportDirectory, cacheDir}) {
            if (!dir.isDirectory() && !dir.mkdirs()) {
                throw new MojoExecutionException("testgen: cannot create the directory " + dir);
            }
        }
        List<String> command = commandLine(resolveBinary(), classpath(), junitVersion(), java());
        getLog().debug("testgen: running " + command);
        run(command);
    }

    private List<String> commandLine(File testgen, List<String> classpath, int junitVersion, File java) {
        List<String> command = new ArrayList<String>();
        command.add(testgen.getAbsolutePath());
        command.add("generate");
        command.add("--classes");
        command.add(classesDirectory.getAbsolutePath());
        if (!classpath.isEmpty()) {
            command.add("--classpath");
            command.add(join(classpath));
        }
        command.add("--out");
        command.add(outputDirectory.getAbsolutePath());
        command.add("--cache");
        command.add(cacheDir.getAbsolutePath());
        command.add("--report");
        command.add(reportDirectory.getAbsolutePath());
        command.add("--java");
        command.add(java.getAbsolutePath());
        command.add("--junit");
        command.add(String.valueOf(junitVersion));
        command.addAll(surefireOptions());
        if (budgetSeconds != null) {
            command.add("--budget");
            command.add(String.valueOf(budgetSeconds));
        }
        if (totalBudgetSeconds != null) {
            command.add("--total-budget");
            command.add(String.valueOf(totalBudgetSeconds));
        }
        if (maxRuns != null) {
            command.add("--max-runs");
            command.add(String.valueOf(maxRuns));
        }
        for (String include : includes) {
            command.add("--include");
            command.add(include);
        }
        for (String exclude : excludes) {
            command.add("--exclude");
            command.add(exclude);
        }
        command.add("--mode");
        command.add(mode);
        if (seed != null) {
            command.add("--seed");
            command.add(String.valueOf(seed));
        }
        if (jobs != null) {
            command.add("--jobs");
            command.add(String.valueOf(jobs));
        }
        return command;
    }

    /** Surefire's artifact key in the build's plugins. */
    private static final String SUREFIRE = "org.apache.maven.plugins:maven-surefire-plugin";

    /**
     * How surefire runs the module's tests, as testgen options ({@link TestTaskOptions}): its
     * {@code enableAssertions} (default true), {@code argLine} (default the property
     * {@code argLine}, which coverage agents set), {@code systemPropertyVariables} and
     * {@code workingDirectory} (default the module's directory), from the plugin's configuration
     * merged with its {@code default-test} execution's, and {@code -DenableAssertions}. Property
     * references left in them ({@code ${name}}, surefire's late {@code @{name}}) are replaced with
     * the project's, the session's or the JVM's properties.
     */
    private List<String> surefireOptions() {
        Xpp3Dom configuration = null;
        Plugin surefire = project.getPlugin(SUREFIRE);
        if (surefire != null) {
            configuration = (Xpp3Dom) surefire.getConfiguration();
            for (PluginExecution execution : surefire.getExecutions()) {
                if ("default-test".equals(execution.getId()) && execution.getConfiguration() != null) {
                    Xpp3Dom own = (Xpp3Dom) execution.getConfiguration();
                    configuration = configuration == null ? own : Xpp3Dom.mergeXpp3Dom(own, configuration);
                }
            }
        }
        String assertions = child(configuration, "enableAssertions");
        if (assertions == null) {
            assertions = property("enableAssertions");
        }
        boolean enableAssertions = assertions == null || !"false".equalsIgnoreCase(assertions.trim());
        String argLine = child(configuration, "argLine");
        if (argLine == null) {
            argLine = property("argLine");
        }
        Map<String, String> properties = new LinkedHashMap<String, String>();
        Xpp3Dom variables = configuration == null ? null : configuration.getChild("systemPropertyVariables");
        if (variables != null) {
            for (Xpp3Dom variable : variables.getChildren()) {
                properties.put(variable.getName(), resolveProperties(variable.getValue()));
            }
        }
        String workingDirectory = child(configuration, "workingDirectory");
        File workingDir = workingDirectory == null ? project.getBasedir() : new File(workingDirectory);
        if (!workingDir.isAbsolute()) {
            workingDir = new File(project.getBasedir(), workingDir.getPath());
        }
        return TestTaskOptions.arguments(enableAssertions, TestTaskOptions.split(resolveProperties(argLine)),
                properties, workingDir);
    }

    private String child(Xpp3Dom configuration, String name) {
        Xpp3Dom child = configuration == null ? null : configuration.getChild(name);
        return child == null || child.getValue() == null ? null : resolveProperties(child.getValue());
    }

    /** A property of the session (-D), the project or the JVM; null if none has it. */
    private String property(String name) {
        String value = session.getUserProperties().getProperty(name);
        if (value == null) {
            value = project.getProperties().getProperty(name);
        }
        return value != null ? value : System.getProperty(name);
    }

    private static final Pattern PROPERTY_REFERENCE = Pattern.compile("[$@]\\{([^}]+)\\}");

    /** {@code text} with {@code ${name}} and {@code @{name}} replaced (by nothing when unknown). */
    private String resolveProperties(String text) {
        if (text == null) {
            return null;
        }
        Matcher matcher = PROPERTY_REFERENCE.matcher(text);
        StringBuffer resolved = new StringBuffer();
        while (matcher.find()) {
            String value = property(matcher.group(1));
            matcher.appendReplacement(resolved, Matcher.quoteReplacement(value == null ? "" : value));
        }
        matcher.appendTail(resolved);
        return resolved.toString();
    }

    /**
     * What the classes need at run time: the compile classpath (which has {@code provided}
     * dependencies) and the runtime classpath (which has {@code runtime} ones), in that order,
     * without the classes directory itself and without entries that do not exist.
     */
    private List<String> classpath() throws MojoExecutionException {
        Set<String> entries = new LinkedHashSet<String>();
        try {
            entries.addAll(project.getCompileClasspathElements());
            entries.addAll(project.getRuntimeClasspathElements());
        } catch (DependencyResolutionRequiredException e) {
            throw new MojoExecutionException("testgen: the module's dependencies are not resolved", e);
        }
        String classes = classesDirectory.getAbsolutePath();
        List<String> classpath = new ArrayList<String>();
        for (String entry : entries) {
            File file = new File(entry);
            if (!file.getAbsolutePath().equals(classes) && file.exists()) {
                classpath.add(file.getAbsolutePath());
            }
        }
        return classpath;
    }

    /** See {@link BinaryLocator}: {@code <binary>}, {@code testgen.binary}, {@code $TESTGEN_BINARY}, PATH. */
    private File resolveBinary() throws MojoExecutionException {
        String property = BinaryLocator.PROPERTY;
        BinaryLocator locator = new BinaryLocator(project.getBasedir())
                .setting("<binary> in the plugin's <configuration>", binary)
                .setting("user property " + property + " (-D" + property + "=...)",
                        session.getUserProperties().getProperty(property))
                .setting("property " + property + " in the POM's <properties>",
                        project.getProperties().getProperty(property))
                .setting("Java system property " + property, System.getProperty(property))
                .setting("environment variable " + BinaryLocator.ENV, System.getenv(BinaryLocator.ENV));
        try {
            return locator.locate(System.getenv("PATH"), new BinaryLocator.ReleasedBinary() {
                @Override
                public File resolve(String group, String artifact, String version, String classifier,
                        String extension) {
                    return releasedBinary(group, artifact, version, classifier, extension);
                }
            }, pluginVersion(), "Fix: pass -D" + property + "=/path/to/testgen, configure <binary>, export "
                    + BinaryLocator.ENV + "=/path/to/testgen, or put testgen on the PATH "
                    + "(build it with: cargo build --release -p testgen_cli).");
        } catch (BinaryLocator.NotFoundException e) {
            throw new MojoExecutionException(e.getMessage());
        }
    }

    /**
     * Where a release would resolve the binary published for this platform, the way
     * protoc-jar-maven-plugin and os-maven-plugin users resolve protoc: the artifact
     * {@code group:artifact:extension:classifier:version} through Maven's {@code RepositorySystem}
     * from the project's remote repositories (an injected component). No release publishes the
     * binary yet, so there is nothing to resolve.
     */
    private File releasedBinary(String group, String artifact, String version, String classifier,
            String extension) {
        return null;
    }

    /** The plugin's own version; the released binary has the same one. */
    private String pluginVersion() {
        String version = GenerateMojo.class.getPackage().getImplementationVersion();
        return version != null ? version : "unknown";
    }

    /** The configured JUnit version, else the one found on the module's test classpath. */
    private int junitVersion() throws MojoExecutionException {
        if (junit != null) {
            return junit;
        }
        List<File> testClasspath = new ArrayList<File>();
        try {
            for (String entry : project.getTestClasspathElements()) {
                testClasspath.add(new File(entry));
            }
        } catch (DependencyResolutionRequiredException e) {
            throw new MojoExecutionException("testgen: the module's test dependencies are not resolved", e);
        }
        JUnitDetector.Result detected = JUnitDetector.detect(testClasspath);
        if (detected.version == 0) {
            getLog().warn("testgen: neither JUnit 5 (org.junit.jupiter.api) nor JUnit 4 (org.junit.Test) is a "
                    + "test dependency of " + project.getArtifactId() + "; generating JUnit 5 tests");
            return 5;
        }
        getLog().info("testgen: JUnit " + detected.version + " (found in " + detected.evidence.getName() + ")");
        return detected.version;
    }

    /**
     * The {@code java} for {@code --java}: {@code javaExecutable}, else the JDK toolchain's (the
     * one matching {@code jdkToolchain}, else the one maven-toolchains-plugin selected), else the
     * JVM running Maven. Says at info level which one it is.
     */
    private File java() throws MojoExecutionException {
        if (javaExecutable != null) {
            getLog().info("testgen: java " + javaExecutable + " (javaExecutable)");
            return javaExecutable;
        }
        Toolchain toolchain = null;
        String how = null;
        if (jdkToolchain != null && !jdkToolchain.isEmpty()) {
            List<Toolchain> matching = toolchainManager.getToolchains(session, "jdk", jdkToolchain);
            if (matching == null || matching.isEmpty()) {
                throw new MojoExecutionException("testgen: no jdk toolchain in toolchains.xml matches <jdkToolchain> "
                        + jdkToolchain + " (Maven reads ~/.m2/toolchains.xml, or the file given with -t)");
            }
            toolchain = matching.get(0);
            how = "toolchain " + toolchain + " matching <jdkToolchain> " + jdkToolchain;
        } else {
            toolchain = toolchainManager.getToolchainFromBuildContext("jdk", session);
            how = "toolchain " + toolchain + " selected by maven-toolchains-plugin";
        }
        if (toolchain != null) {
            String tool = toolchain.findTool("java");
            if (tool == null) {
                throw new MojoExecutionException("testgen: the " + how + " has no bin/java");
            }
            getLog().info("testgen: java " + tool + " (" + how + ")");
            return new File(tool);
        }
        File own = new File(new File(System.getProperty("java.home"), "bin"), isWindows() ? "java.exe" : "java");
        getLog().info("testgen: java " + own + " (the JVM running Maven)");
        return own;
    }

    private void run(List<String> command) throws MojoExecutionException, MojoFailureException {
        int status;
        Deque<String> errors = new ArrayDeque<String>();
        try {
            Process process = new ProcessBuilder(command).directory(project.getBasedir()).start();
            process.getOutputStream().close();
            Thread stderr = pump(process.getErrorStream(), getLog(), errors);
            Thread stdout = pump(process.getInputStream(), getLog(), null);
            status = process.waitFor();
            stdout.join();
            stderr.join();
        } catch (IOException e) {
            throw new MojoExecutionException("testgen: cannot run " + command.get(0) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MojoExecutionException("testgen: interrupted", e);
        }
        if (status != 0) {
            StringBuilder message = new StringBuilder("testgen failed (exit status " + status + ")");
            synchronized (errors) {
                for (String line : errors) {
                    message.append('\n').append(line);
                }
            }
            throw new MojoFailureException(message.toString());
        }
    }

    /** Copies a stream of the binary to Maven's log, keeping the last lines of stderr. */
    private static Thread pump(final InputStream stream, final Log log, final Deque<String> keep) {
        Thread thread = new Thread(new Runnable() {
            @Override
            public void run() {
                try (BufferedReader reader = new BufferedReader(
                        new InputStreamReader(stream, Charset.defaultCharset()))) {
                    String line;
                    while ((line = reader.readLine()) != null) {
                        if (keep == null) {
                            log.info(line);
                        } else {
                            log.warn(line);
                            synchronized (keep) {
                                keep.addLast(line);
                                if (keep.size() > 40) {
                                    keep.removeFirst();
                                }
                            }
                        }
                    }
                } catch (IOException e) {
                    log.warn("testgen: reading the binary's output failed: " + e);
                }
            }
        }, "testgen-output");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static String join(List<String> entries) {
        StringBuilder joined = new StringBuilder();
        for (String entry : entries) {
            if (joined.length() > 0) {
                joined.append(File.pathSeparator);
            }
            joined.append(entry);
        }
        return joined.toString();
    }

    private static boolean isWindows() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
    }
}
