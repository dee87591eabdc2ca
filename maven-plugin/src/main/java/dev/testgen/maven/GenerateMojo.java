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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

import org.apache.maven.artifact.DependencyResolutionRequiredException;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugin.logging.Log;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.plugins.annotations.ResolutionScope;
import org.apache.maven.project.MavenProject;

/**
 * Runs {@code testgen generate} on the module's compiled classes and adds the generated JUnit
 * test sources to the test compile source roots, so that {@code test-compile} compiles them and
 * surefire runs them.
 *
 * <p>Maven has no up-to-date check of its own; testgen's incremental mode and its per-class cache
 * (in {@link #cacheDirectory}) make a run over unchanged classes cheap.
 */
@Mojo(name = "generate", defaultPhase = LifecyclePhase.GENERATE_TEST_SOURCES,
        requiresDependencyResolution = ResolutionScope.TEST, threadSafe = true)
public class GenerateMojo extends AbstractMojo {
    /** The environment variable that names the binary when nothing else does. */
    static final String EXECUTABLE_ENV = "TESTGEN";

    @Parameter(defaultValue = "${project}", readonly = true, required = true)
    private MavenProject project;

    /** Skips the goal. */
    @Parameter(property = "testgen.skip", defaultValue = "false")
    private boolean skip;

    /**
     * The testgen binary. Unset: the environment variable {@code TESTGEN}, then {@code testgen}
     * on the {@code PATH}.
     */
    @Parameter(property = "testgen.executable")
    private File executable;

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

    /** testgen's per-class cache ({@code --cache}). */
    @Parameter(property = "testgen.cacheDirectory", defaultValue = "${project.build.directory}/testgen-cache",
            required = true)
    private File cacheDirectory;

    /** The {@code java} that runs the code under test ({@code --java}); unset: Maven's JVM. */
    @Parameter(property = "testgen.javaExecutable")
    private File javaExecutable;

    /** JUnit generation, 5 or 4 ({@code --junit}); testgen rejects anything else. */
    @Parameter(property = "testgen.junit", defaultValue = "5")
    private int junit;

    /** Time budget per class in seconds ({@code --budget}); unset: testgen's default. */
    @Parameter(property = "testgen.budgetSeconds")
    private Integer budgetSeconds;

    /** Class name patterns to test ({@code --include}, repeated); empty: every class. */
    @Parameter
    private List<String> includes = new ArrayList<String>();

    /** Class name patterns to leave out ({@code --exclude}, repeated). */
    @Parameter
    private List<String> excludes = new ArrayList<String>();

    /** {@code incremental} (only changed classes) or {@code full} ({@code --mode}). */
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
        for (File dir : new File[] {outputDirectory, reportDirectory, cacheDirectory}) {
            if (!dir.isDirectory() && !dir.mkdirs()) {
                throw new MojoExecutionException("testgen: cannot create the directory " + dir);
            }
        }
        List<String> command = commandLine(resolveExecutable(), classpath());
        getLog().debug("testgen: running " + command);
        run(command);
    }

    private List<String> commandLine(File binary, List<String> classpath) {
        List<String> command = new ArrayList<String>();
        command.add(binary.getAbsolutePath());
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
        command.add(cacheDirectory.getAbsolutePath());
        command.add("--report");
        command.add(reportDirectory.getAbsolutePath());
        command.add("--java");
        command.add(java().getAbsolutePath());
        command.add("--junit");
        command.add(String.valueOf(junit));
        if (budgetSeconds != null) {
            command.add("--budget");
            command.add(String.valueOf(budgetSeconds));
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

    private File resolveExecutable() throws MojoExecutionException {
        if (executable != null) {
            return existing(executable, "<executable> / -Dtestgen.executable");
        }
        String env = System.getenv(EXECUTABLE_ENV);
        if (env != null && !env.isEmpty()) {
            return existing(new File(env), "$" + EXECUTABLE_ENV);
        }
        String path = System.getenv("PATH");
        if (path != null) {
            String name = isWindows() ? "testgen.exe" : "testgen";
            for (String dir : path.split(Pattern.quote(File.pathSeparator))) {
                File candidate = new File(dir, name);
                if (!dir.isEmpty() && candidate.isFile() && candidate.canExecute()) {
                    return candidate;
                }
            }
        }
        throw new MojoExecutionException("testgen: cannot find the testgen binary. Configure <executable>, "
                + "pass -Dtestgen.executable=PATH, set $" + EXECUTABLE_ENV + ", or put testgen on the PATH.");
    }

    private File java() {
        if (javaExecutable != null) {
            return javaExecutable;
        }
        return new File(new File(System.getProperty("java.home"), "bin"), isWindows() ? "java.exe" : "java");
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

    private static File existing(File file, String source) throws MojoExecutionException {
        if (!file.isFile()) {
            throw new MojoExecutionException("testgen: the binary named by " + source + " does not exist: " + file);
        }
        return file;
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
