package dev.testgen.gradle;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code testgen { }} block: project-wide defaults for every {@link GenerateTestsTask}.
 *
 * <p>Plain getters and setters (no lazy Property API) so that the same code runs on Gradle 4.4.1
 * and on Gradle 7 and 8; the task reads these values only when it runs.
 */
public class TestgenExtension {
    private Object binary;
    private Integer junit;
    private Integer budgetSeconds;
    private Integer totalBudgetSeconds;
    private Integer maxRuns;
    private List<String> includes = new ArrayList<String>();
    private List<String> excludes = new ArrayList<String>();
    private String mode;
    private Long seed;
    private Integer jobs;
    private Object javaExecutable;
    private Object cacheDir;

    /**
     * The testgen binary (a path, relative to the project directory, or a File). When unset:
     * the project property {@code testgen.binary}, then the environment variable
     * {@code TESTGEN_BINARY}, then {@code testgen} on the {@code PATH}.
     */
    public Object getBinary() {
        return binary;
    }

    public void setBinary(Object binary) {
        this.binary = binary;
    }

    /**
     * JUnit generation, 5 or 4 ({@code --junit}); testgen rejects anything else. Unset: detected
     * from the test compile classpath (Jupiter's API: 5, else JUnit 4: 4).
     */
    public Integer getJunit() {
        return junit;
    }

    public void setJunit(Integer junit) {
        this.junit = junit;
    }

    /** Runs of one method at most while exploring ({@code --max-runs}); unset: testgen's default. */
    public Integer getMaxRuns() {
        return maxRuns;
    }

    public void setMaxRuns(Integer maxRuns) {
        this.maxRuns = maxRuns;
    }

    /**
     * testgen's per-class cache ({@code --cache}); unset: {@code .testgen} in the project
     * directory, so that it survives {@code gradle clean}. Keep it between CI runs.
     */
    public Object getCacheDir() {
        return cacheDir;
    }

    public void setCacheDir(Object cacheDir) {
        this.cacheDir = cacheDir;
    }

    /** Time budget per class in seconds ({@code --budget}); unset: testgen's default. */
    public Integer getBudgetSeconds() {
        return budgetSeconds;
    }

    public void setBudgetSeconds(Integer budgetSeconds) {
        this.budgetSeconds = budgetSeconds;
    }

    /** The whole run's time in seconds ({@code --total-budget}, meant for mode nightly); unset: none. */
    public Integer getTotalBudgetSeconds() {
        return totalBudgetSeconds;
    }

    public void setTotalBudgetSeconds(Integer totalBudgetSeconds) {
        this.totalBudgetSeconds = totalBudgetSeconds;
    }

    /** Class name patterns to test ({@code --include}, repeated); empty: every class. */
    public List<String> getIncludes() {
        return includes;
    }

    public void setIncludes(List<String> includes) {
        this.includes = new ArrayList<String>(includes);
    }

    public void include(String... patterns) {
        includes.addAll(Arrays.asList(patterns));
    }

    /** Class name patterns to leave out ({@code --exclude}, repeated). */
    public List<String> getExcludes() {
        return excludes;
    }

    public void setExcludes(List<String> excludes) {
        this.excludes = new ArrayList<String>(excludes);
    }

    public void exclude(String... patterns) {
        excludes.addAll(Arrays.asList(patterns));
    }

    /**
     * {@code incremental} (only changed classes), {@code full} or {@code nightly} (incremental plus
     * deeper exploration, with {@code totalBudgetSeconds}) ({@code --mode}); unset: incremental.
     */
    public String getMode() {
        return mode;
    }

    public void setMode(String mode) {
        this.mode = mode;
    }

    /** Seed of testgen's search ({@code --seed}); unset: testgen's default. */
    public Long getSeed() {
        return seed;
    }

    public void setSeed(Long seed) {
        this.seed = seed;
    }

    /** Worker count ({@code --jobs}); unset: testgen's default. Does not change the output. */
    public Integer getJobs() {
        return jobs;
    }

    public void setJobs(Integer jobs) {
        this.jobs = jobs;
    }

    /**
     * The {@code java} that runs the code under test ({@code --java}); unset: the JVM that runs
     * Gradle.
     */
    public Object getJavaExecutable() {
        return javaExecutable;
    }

    public void setJavaExecutable(Object javaExecutable) {
        this.javaExecutable = javaExecutable;
    }
}
