package dev.testgen.gradle;

import java.io.File;
import java.util.concurrent.Callable;

import org.gradle.api.Action;
import org.gradle.api.GradleException;
import org.gradle.api.Plugin;
import org.gradle.api.Project;
import org.gradle.api.Task;
import org.gradle.api.file.Directory;
import org.gradle.api.file.FileCollection;
import org.gradle.api.plugins.AppliedPlugin;
import org.gradle.api.plugins.JavaPlugin;
import org.gradle.api.provider.Provider;
import org.gradle.api.tasks.SourceSet;
import org.gradle.api.tasks.SourceSetContainer;
import org.gradle.api.tasks.testing.Test;

/**
 * The {@code dev.testgen} plugin: a {@code testgen { }} extension and, once the {@code java}
 * plugin is applied, a {@code generateTests} task whose output directory is a source directory
 * of the {@code test} source set (so {@code compileTestJava} compiles and {@code test} runs the
 * generated tests).
 */
public class TestgenPlugin implements Plugin<Project> {
    public static final String EXTENSION_NAME = "testgen";
    public static final String TASK_NAME = "generateTests";

    @Override
    public void apply(final Project project) {
        final TestgenExtension extension = project.getExtensions().create(EXTENSION_NAME, TestgenExtension.class);
        project.getPluginManager().withPlugin("java", new Action<AppliedPlugin>() {
            @Override
            public void execute(AppliedPlugin java) {
                configure(project, extension);
            }
        });
    }

    private static void configure(final Project project, final TestgenExtension extension) {
        SourceSetContainer sourceSets = sourceSets(project);
        final SourceSet main = sourceSets.getByName(SourceSet.MAIN_SOURCE_SET_NAME);
        final SourceSet test = sourceSets.getByName(SourceSet.TEST_SOURCE_SET_NAME);

        final GenerateTestsTask task = project.getTasks().create(TASK_NAME, GenerateTestsTask.class);
        task.setGroup("verification");
        task.setDescription("Generates JUnit tests for the main classes with testgen.");
        task.setDefaults(extension);
        task.dependsOn(main.getClassesTaskName());
        // Lazy: read when the task runs, after the build script had its say.
        task.setClassesDirs(project.files(new Callable<FileCollection>() {
            @Override
            public FileCollection call() {
                return main.getOutput().getClassesDirs();
            }
        }));
        task.setClasspath(project.files(new Callable<FileCollection>() {
            @Override
            public FileCollection call() {
                return main.getRuntimeClasspath().minus(main.getOutput().getClassesDirs());
            }
        }));
        // The report shows the source line of each branch outcome left open.
        task.setJavaSources(main.getJava());
        // The JUnit flavour is detected from what the tests compile against.
        task.setTestClasspath(project.files(new Callable<FileCollection>() {
            @Override
            public FileCollection call() {
                return test.getCompileClasspath();
            }
        }));
        task.setOutputDir(buildPath(project, "generated-tests/testgen/java"));
        task.setReportDir(buildPath(project, "reports/testgen"));
        // At the project's root, not under build/: the per-class cache must survive `gradle clean`.
        final File defaultCache = project.file(".testgen");
        task.setCacheDir(new Callable<Object>() {
            @Override
            public Object call() {
                return extension.getCacheDir() != null ? extension.getCacheDir() : defaultCache;
            }
        });

        test.getJava().srcDir(new Callable<File>() {
            @Override
            public File call() {
                return task.getOutputDir();
            }
        });
        project.getTasks().getByName(test.getCompileJavaTaskName()).dependsOn(task);
        // The code runs as the `test` task will run the tests (assertions, JVM arguments,
        // system properties, working directory), read when generateTests runs.
        Task testTask = project.getTasks().findByName(JavaPlugin.TEST_TASK_NAME);
        if (testTask instanceof Test) {
            task.setTestTask((Test) testTask);
        }
    }

    /**
     * A directory below the build directory, resolved when the task runs. {@code
     * ProjectLayout.getBuildDirectory()} exists since Gradle 4.1 with the same signature as in
     * Gradle 8, and unlike {@code Project.getBuildDir()} it is not deprecated there.
     */
    private static Provider<Directory> buildPath(Project project, String path) {
        return project.getLayout().getBuildDirectory().dir(path);
    }

    /**
     * The project's source sets in a way that works from Gradle 4.4 to 9: since Gradle 4.10 they
     * are the {@code sourceSets} extension (typed {@link SourceSetContainer}; the
     * {@code JavaPluginConvention} that held them before is deprecated in 8 and gone in 9);
     * before 4.10 {@code sourceSets} is a convention property, which {@code
     * Project.property} finds without naming the convention type.
     */
    static SourceSetContainer sourceSets(Project project) {
        SourceSetContainer container = project.getExtensions().findByType(SourceSetContainer.class);
        if (container != null) {
            return container;
        }
        Object property = project.findProperty("sourceSets");
        if (property instanceof SourceSetContainer) {
            return (SourceSetContainer) property;
        }
        throw new GradleException("testgen: the project has the java plugin but no sourceSets");
    }
}
