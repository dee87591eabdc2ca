package dev.testgen.executor;

import java.io.IOException;
import java.net.URL;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;

/**
 * The class loader of one plan (or one batch of plans): a new one gives the
 * code under test fresh static state.
 *
 * Child-first for the project: classes given with {@code define} (the
 * instrumented ones) win over the classpath, which wins over the parent.
 * Parent-first for the JDK's packages and for the executor itself, so that
 * instrumented code finds the one {@link Probe}.
 */
final class PlanLoader extends ClassLoader {
    static {
        registerAsParallelCapable();
    }

    private static final String EXECUTOR_PACKAGE = "dev.testgen.executor.";

    private final ClassSource source;
    /** Binary name to class file; an immutable snapshot. */
    private final Map<String, byte[]> defined;

    PlanLoader(ClassSource source, Map<String, byte[]> defined, ClassLoader parent) {
        super("testgen-plan", parent);
        this.source = source;
        this.defined = defined;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (name.startsWith("java.") || name.startsWith(EXECUTOR_PACKAGE) || source.isJdkPackage(name)) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                c = defineOwn(name);
            }
            if (c == null) {
                return super.loadClass(name, resolve);
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }

    /** Defines {@code name} from the defined classes or the classpath; null if neither has it. */
    private Class<?> defineOwn(String name) {
        byte[] bytes = defined.get(name);
        if (bytes != null) {
            return defineClass(name, bytes, 0, bytes.length);
        }
        ClassSource.Found found = source.find(name);
        if (found != null) {
            return defineClass(name, found.bytes, 0, found.bytes.length, found.domain);
        }
        return null;
    }

    @Override
    protected URL findResource(String name) {
        List<URL> urls = source.resources(name);
        return urls.isEmpty() ? null : urls.get(0);
    }

    @Override
    protected Enumeration<URL> findResources(String name) throws IOException {
        return Collections.enumeration(source.resources(name));
    }
}
