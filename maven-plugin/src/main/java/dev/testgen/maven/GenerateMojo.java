package dev.testgen.maven;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.testgen.common.BinaryLocator;
import dev.testgen.common.JUnitDetector;
import dev.testgen.common.TestTaskOptions;
import dev.testgen.common.TestgenCommand;
import dev.testgen.common.TestgenProcess;

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

    /** Where {@code testgen-report.json} and {@code testgen-report.html} are written ({@code --report}). */
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
        TestgenCommand command = new TestgenCommand()
                .binary(resolveBinary())
                .classes(Collections.singletonList(classesDirectory))
                .classpath(classpath())
                .outputDir(outputDirectory)
                .cacheDir(cacheDir)
                .reportDir(reportDirectory)
                .sources(sourceRoots())
                .javaExecutable(java())
                .junit(junitVersion())
                .budgetSeconds(budgetSeconds)
                .totalBudgetSeconds(totalBudgetSeconds)
                .maxRuns(maxRuns)
                .includes(includes)
                .excludes(excludes)
                .mode(mode)
                .seed(seed)
                .jobs(jobs);
        addSurefireSettings(command);
        run(command.commandLine());
    }

    /** Surefire's artifact key in the build's plugins. */
    private static final String SUREFIRE = "org.apache.maven.plugins:maven-surefire-plugin";

    /**
     * How surefire runs the module's tests, for testgen to run the code the same way: its
     * {@code enableAssertions} (default true), {@code argLine} (default the property
     * {@code argLine}, which coverage agents set), {@code systemPropertyVariables} and
     * {@code workingDirectory} (default the module's directory), from the plugin's configuration
     * merged with its {@code default-test} execution's, and {@code -DenableAssertions}. Property
     * references left in them ({@code ${name}}, surefire's late {@code @{name}}) are replaced with
     * the project's, the session's or the JVM's properties.
     */
    private void addSurefireSettings(TestgenCommand command) {
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
        command.testAssertions(enableAssertions)
                .testJvmArgs(TestTaskOptions.split(resolveProperties(argLine)))
                .testSystemProperties(properties)
                .testWorkingDir(workingDir);
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
     * dependencies), then the runtime classpath (which has {@code runtime} ones); the classes
     * directory itself and entries that do not exist are left out by {@link TestgenCommand}.
     */
    private List<File> classpath() throws MojoExecutionException {
        List<File> classpath = new ArrayList<File>();
        try {
            for (String entry : project.getCompileClasspathElements()) {
                classpath.add(new File(entry));
            }
            for (String entry : project.getRuntimeClasspathElements()) {
                classpath.add(new File(entry));
            }
        } catch (DependencyResolutionRequiredException e) {
            throw new MojoExecutionException("testgen: the module's dependencies are not resolved", e);
        }
        return classpath;
    }

    /**
     * The module's compile source roots ({@code --sources}), for the source lines of the report;
     * {@link TestgenCommand} leaves out those without sources.
     */
    private List<File> sourceRoots() {
        List<File> roots = new ArrayList<File>();
        for (String root : project.getCompileSourceRoots()) {
            roots.add(new File(root));
        }
        return roots;
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
                .setting("Java system property " + property, System.getProperty(property));
        // Once a release publishes the binary, resolve it the way protoc-jar-maven-plugin and
        // os-maven-plugin users resolve protoc: the artifact group:artifact:extension:classifier:version
        // through Maven's RepositorySystem (an injected component), from the project's repositories.
        BinaryLocator.ReleasedBinary released = BinaryLocator.NOT_PUBLISHED;
        try {
            return locator.locate(released, "Fix: pass -D" + property + "=/path/to/testgen, configure <binary>, "
                    + "export " + BinaryLocator.ENV + "=/path/to/testgen, or put testgen on the PATH (build it "
                    + "with: cargo build --release -p testgen_cli).");
        } catch (BinaryLocator.NotFoundException e) {
            throw new MojoExecutionException(e.getMessage());
        }
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
        String message = detected.message("the test classpath of " + project.getArtifactId());
        if (detected.evidence == null) {
            getLog().warn(message);
        } else {
            getLog().info(message);
        }
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
        File own = TestgenCommand.javaOfThisJvm();
        getLog().info("testgen: java " + own + " (the JVM running Maven)");
        return own;
    }

    private void run(List<String> command) throws MojoExecutionException, MojoFailureException {
        getLog().debug("testgen: running " + command);
        Log log = getLog();
        try {
            TestgenProcess.run(command, project.getBasedir(), log::info, log::warn);
        } catch (IOException e) {
            throw new MojoExecutionException("testgen: cannot run " + command.get(0) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MojoExecutionException("testgen: interrupted", e);
        } catch (TestgenProcess.FailedException e) {
            throw new MojoFailureException(e.getMessage());
        }
    }
}
